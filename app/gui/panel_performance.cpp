// attnscope — Performance panel: time and peak memory against n on log–log axes for the selected variants,
// with theoretical slopes, a progress bar while the sweep runs, and speed-up / memory-saving tables.
// Timing source for now: a simple sweep calling run_variant on the worker (SweepRequest); the benchmark
// engine (bench branch) is meant to replace it with warmed-up, repeated measurements.
#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cmath>

#include "app.h"

namespace attnscope::gui {

namespace {

/// Draws c·n^slope through the first point of `anchor` over the sweep's n range.
void slope_guide(const char* label, double slope, const std::vector<SweepPoint>& anchor, double (*y_of)(const SweepPoint&),
                 double n_lo, double n_hi) {
    if (anchor.empty() || y_of(anchor.front()) <= 0) return;
    const double n0 = anchor.front().n, y0 = y_of(anchor.front());
    const double xs[2] = {n_lo, n_hi};
    const double ys[2] = {y0 * std::pow(n_lo / n0, slope), y0 * std::pow(n_hi / n0, slope)};
    ImPlotSpec spec;
    spec.LineColor = ImVec4(0.8f, 0.8f, 0.8f, slope > 1.5 ? 0.75f : 0.45f);
    spec.LineWeight = 1.5f;
    ImPlot::PlotLine(label, xs, ys, 2, spec);
}

double time_of(const SweepPoint& p) { return p.time_ms; }
double memory_of(const SweepPoint& p) { return p.peak_bytes / (1 << 20); }

void sweep_plot(const char* title, const char* y_label, const SweepSnapshot& s, double (*y_of)(const SweepPoint&),
                bool slopes, ImVec2 size) {
    if (!ImPlot::BeginPlot(title, size)) return;
    ImPlot::SetupAxes("sequence length n", y_label, ImPlotAxisFlags_AutoFit, ImPlotAxisFlags_AutoFit);
    ImPlot::SetupAxisScale(ImAxis_X1, ImPlotScale_Log10);
    ImPlot::SetupAxisScale(ImAxis_Y1, ImPlotScale_Log10);
    ImPlot::SetupLegend(ImPlotLocation_NorthWest);
    double n_lo = 1e30, n_hi = 0;
    const std::vector<SweepPoint>* anchor = nullptr;
    for (size_t k = 0; k < s.ids.size(); ++k) {
        const auto& pts = s.points[k];
        std::vector<double> x, y;
        for (const auto& p : pts)
            if (y_of(p) > 0) x.push_back(p.n), y.push_back(y_of(p)), n_lo = std::min(n_lo, double(p.n)), n_hi = std::max(n_hi, double(p.n));
        if (!anchor && !pts.empty()) anchor = &pts;
        ImPlotSpec spec;
        spec.Marker = ImPlotMarker_Circle;
        ImPlot::PlotLine(s.ids[k].c_str(), x.data(), y.data(), int(x.size()), spec);
    }
    if (slopes && anchor && n_hi > n_lo) {
        slope_guide("slope 1: O(n)", 1, *anchor, y_of, n_lo, n_hi);
        slope_guide("slope 2: O(n²)", 2, *anchor, y_of, n_lo, n_hi);
    }
    ImPlot::EndPlot();
}

const SweepPoint* point_at(const std::vector<SweepPoint>& pts, int n) {
    for (const auto& p : pts)
        if (p.n == n) return &p;
    return nullptr;
}

}  // namespace

void draw_performance_panel(App& app) {
    if (!ImGui::Begin(kPerformanceWindow)) {
        ImGui::End();
        return;
    }
    PerfState& ps = app.perf;
    ImGui::SetNextItemWidth(140);
    ImGui::SliderInt("from n = 2^", &ps.n_min_log2, 4, 16);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(140);
    ImGui::SliderInt("to n = 2^", &ps.n_max_log2, 4, 16);
    ps.n_max_log2 = std::max(ps.n_max_log2, ps.n_min_log2);
    ImGui::SameLine();
    ImGui::TextDisabled("(n = %d … %d)", 1 << ps.n_min_log2, 1 << ps.n_max_log2);
    ImGui::SetNextItemWidth(100);
    ImGui::SliderInt("heads", &ps.heads, 1, 16);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(100);
    ImGui::SliderInt("d", &ps.dim, 8, 256);
    ImGui::SameLine();
    ImGui::Checkbox("theoretical slopes", &ps.show_slopes);
    ImGui::SameLine();
    const bool running = app.sweeps.state() == WorkerState::Running;
    if (ImGui::Button(running ? "Restart sweep" : "Run sweep") || ps.run_on_start) {
        ps.run_on_start = false;
        SweepRequest r;
        r.base = app.input.spec.scenario;
        r.base.heads = ps.heads, r.base.dim = ps.dim;
        for (const auto& s : app.variants.slots) r.variants.push_back({s.id, s.params});
        for (int e = ps.n_min_log2; e <= ps.n_max_log2; ++e) r.ns.push_back(1 << e);
        r.max_point_ms = ps.max_point_ms;
        app.sweeps.post(std::move(r));
    }
    ImGui::SetItemTooltip("time every selected variant once per n on the current scenario (single runs: noisy)");
    if (running) ImGui::ProgressBar(app.sweeps.progress(), ImVec2(-1, 0), "sweeping…");
    const auto s = app.sweep;
    if (!s) {
        hint_text("Press Run sweep to time the selected variants over n on log–log axes, beside the O(n) and O(n²) "
                    "slopes. This is a single-run sweep on the worker; the benchmark engine (bench branch) will "
                    "supply repeated, warmed-up timings here.");
        ImGui::End();
        return;
    }
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float w = (avail.x - ImGui::GetStyle().ItemSpacing.x * 2) * 0.31f;
    const float h = std::max(200.0f, avail.y - ImGui::GetTextLineHeightWithSpacing() * float(s->notes.size() + 1));
    sweep_plot("time vs n (log–log)", "time [ms]", *s, time_of, ps.show_slopes, ImVec2(w, h));
    ImGui::SameLine();
    sweep_plot("peak memory vs n (log–log)", "peak memory [MiB]", *s, memory_of, ps.show_slopes, ImVec2(w, h));
    ImGui::SameLine();
    ImGui::BeginGroup();
    // The table compares at the largest n every variant reached, against flash (time) and full (memory).
    int n_cmp = 0;
    for (const auto& pts : s->points)
        for (const auto& p : pts) n_cmp = std::max(n_cmp, p.n);
    auto ref_point = [&](const char* id) -> const SweepPoint* {
        for (size_t k = 0; k < s->ids.size(); ++k)
            if (s->ids[k] == id) return point_at(s->points[k], n_cmp);
        return nullptr;
    };
    const SweepPoint* flash = ref_point("flash");
    const SweepPoint* full = ref_point("full");
    ImGui::Text("at n = %d", n_cmp);
    if (ImGui::BeginTable("cmp", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn("variant");
        ImGui::TableSetupColumn("time ms");
        ImGui::TableSetupColumn("speed-up vs flash");
        ImGui::TableSetupColumn("memory");
        ImGui::TableSetupColumn("saving vs full");
        ImGui::TableHeadersRow();
        for (size_t k = 0; k < s->ids.size(); ++k) {
            const SweepPoint* p = point_at(s->points[k], n_cmp);
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(s->ids[k].c_str());
            ImGui::TableNextColumn();
            if (!p) {
                ImGui::TextDisabled("—");
                continue;
            }
            ImGui::Text("%.2f", p->time_ms);
            ImGui::TableNextColumn();
            if (flash && p->time_ms > 0) ImGui::Text("%.2f×", flash->time_ms / p->time_ms);
            else ImGui::TextDisabled("—");
            ImGui::TableNextColumn();
            ImGui::Text("%.1f MiB", p->peak_bytes / (1 << 20));
            ImGui::TableNextColumn();
            if (full && p->peak_bytes > 0) ImGui::Text("%.2f×", full->peak_bytes / p->peak_bytes);
            else ImGui::TextDisabled("—");
        }
        ImGui::EndTable();
    }
    ImGui::TextDisabled("single runs on a shared machine: noisy");
    ImGui::EndGroup();
    for (const auto& note : s->notes) ImGui::TextDisabled("%s", note.c_str());
    ImGui::End();
}

}  // namespace attnscope::gui
