// attnscope — Streaming panel: StreamingLLM on the decoder's text (core/session/streaming_llm.h). Perplexity against
// the cache's window for the window alone and the sinks at cache and at text positions with full attention as a line;
// each method ÷ full attention on the same positions (the recomputed windows on their sampled positions); and the
// exact attention the first tokens receive in each layer. Every number drawn is recorded by name (the streaming-llm
// lesson's check reports the same ones). Computed as a worker job while the tab is visible.
#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "app/gui/app.h"
#include "app/gui/panel_figures.h"
#include "app/gui/panels.h"
#include "app/gui/plot_room.h"
#include "core/data/model_paths.h"
#include "core/data/text_input.h"
#include "core/data/text_model.h"
#include "core/figure/perplexity_figure.h"
#include "core/session/streaming_view.h"

namespace attnscope::gui {

/// The measured table.
struct StreamingView {
    std::shared_ptr<const StreamingTable> table;
};

namespace {

std::string streaming_key(const App& app) {
    const StreamingSettings& s = app.streaming.settings;
    return analysis_input_key(app) + '\x1f' + s.windows + '\x1f' + std::to_string(s.sinks) + '\x1f' +
           std::to_string(s.recompute_samples);
}

std::shared_ptr<ViewJob<StreamingView>::Job> make_job(App& app) {
    const InputSpec input = app.effective_input();
    const StreamingSettings settings = app.streaming.settings;
    auto step = std::make_shared<std::string>();
    auto step_mutex = std::make_shared<std::mutex>();
    app.streaming.step = step, app.streaming.step_mutex = step_mutex;
    return std::make_shared<ViewJob<StreamingView>::Job>(
        "StreamingLLM perplexities", [=](JobContext& ctx) -> std::shared_ptr<const StreamingView> {
            const ModelChoice model = resolve_model(input.model_dir);
            if (input.mode != InputMode::Text || !model.decoder)
                throw Error("StreamingLLM measures a decoder's perplexity: choose SmolLM2 (or a .gguf file) in Input ▸ "
                            "model and give it a long text (the ferry sample has about 4 700 tokens)");
            const auto decoder = load_decoder_model(model.path);
            const std::vector<int> ids = tokenize_text(input.text, model.path);
            if (int(ids.size()) > decoder->decoder.config().context)
                throw Error("the text has " + std::to_string(ids.size()) + " tokens, more than the decoder's " +
                            std::to_string(decoder->decoder.config().context) + ": shorten it");
            auto view = std::make_shared<StreamingView>();
            try {
                view->table = remembered_streaming(decoder->decoder, ids, parse_window_list(settings.windows, "windows"),
                                                   settings.sinks, settings.recompute_samples,
                                                   [&](const std::string& what) {
                                                       std::lock_guard<std::mutex> lock(*step_mutex);
                                                       *step = what;
                                                       return !ctx.cancelled();
                                                   });
            } catch (const Error&) {
                if (ctx.cancelled()) return nullptr;
                throw;
            }
            return view;
        });
}

/// x positions and labels of the windows (a log axis labelled at the measured windows).
void setup_window_axis(const StreamingTable& t, const char* y_label) {
    ImPlot::SetupAxes("recent tokens w in the cache", y_label, ImPlotAxisFlags_AutoFit, ImPlotAxisFlags_None);
    ImPlot::SetupAxisScale(ImAxis_X1, ImPlotScale_Log10);
    std::vector<double> ticks;
    std::vector<std::string> labels;
    std::vector<const char*> ptrs;
    for (const StreamingRow& r : t.rows) ticks.push_back(r.window), labels.push_back(std::to_string(r.window));
    for (const std::string& l : labels) ptrs.push_back(l.c_str());
    ImPlot::SetupAxisTicks(ImAxis_X1, ticks.data(), int(ticks.size()), ptrs.data());
}

void draw_plots(const StreamingTable& t, ImVec2 size) {
    const figure::PlotFigure f = figure::streaming_figure(t);  // the series the exported figure draws, too
    const float w = (size.x - 2 * ImGui::GetStyle().ItemSpacing.x) / 3;
    for (size_t k = 0; k < f.panels.size(); ++k) {
        const figure::PlotPanel& p = f.panels[k];
        if (k) ImGui::SameLine();
        const ImVec2 one(w, size.y);
        const std::string id = "##streaming" + std::to_string(k);
        if (!plot_fits(one) || !ImPlot::BeginPlot(id.c_str(), one, ImPlotFlags_NoMouseText)) continue;
        // Below the plot, never over a curve: the three plots share the room beside each other.
        ImPlot::SetupLegend(ImPlotLocation_South, ImPlotLegendFlags_Outside);
        if (k < 2) {
            setup_window_axis(t, p.y.label.c_str());  // linear y: perplexities of tens read best with labelled ticks
            // Padded so full attention's line (the lowest) does not sit on the frame.
            double lo = 1e300, hi = 0;
            for (const figure::PlotSeries& s : p.series)
                for (double y : s.y) lo = std::min(lo, y), hi = std::max(hi, y);
            const double pad = 0.08 * (hi - lo) + 1e-3;
            ImPlot::SetupAxisLimits(ImAxis_Y1, lo - pad, hi + pad, ImPlotCond_Always);
        } else {
            ImPlot::SetupAxes(p.x.label.c_str(), p.y.label.c_str(), ImPlotAxisFlags_AutoFit, ImPlotAxisFlags_None);
            ImPlot::SetupAxisLimits(ImAxis_Y1, 0, 1, ImPlotCond_Always);
        }
        ImPlot::SetupFinish();
        for (const figure::PlotSeries& s : p.series) {
            ImPlotSpec spec;
            if (s.ink == figure::PlotSeries::Ink::Text) spec.LineColor = ImGui::GetStyleColorVec4(ImGuiCol_Text);
            if (s.bars) {
                ImPlot::PlotBars(s.name.c_str(), s.x.data(), s.y.data(), int(s.x.size()), 0.7, spec);
            } else {
                spec.Marker = s.markers ? ImPlotMarker_Circle : ImPlotMarker_None;
                ImPlot::PlotLine(s.name.c_str(), s.x.data(), s.y.data(), int(s.x.size()), spec);
            }
        }
        if (ImPlot::IsPlotHovered() && k < 2) {
            // The nearest measured window, and every method's number there.
            const double x = ImPlot::GetPlotMousePos().x;
            const StreamingRow* best = &t.rows.front();
            for (const StreamingRow& r : t.rows)
                if (std::abs(std::log(r.window / x)) < std::abs(std::log(best->window / x))) best = &r;
            std::string tip = "w = " + std::to_string(best->window) + ": window alone " +
                              std::to_string(best->window_only).substr(0, 6) + ", sinks (cache) " +
                              std::to_string(best->sinks_cache).substr(0, 6) + ", sinks (text) " +
                              std::to_string(best->sinks_text).substr(0, 6) + ", full " + std::to_string(t.full).substr(0, 6);
            if (!t.recompute_positions.empty())
                tip += "\nrecomputed windows " + std::to_string(best->recompute).substr(0, 6) + ", full attention " +
                       std::to_string(best->full_at_sampled).substr(0, 6) + " on the same " +
                       std::to_string(t.recompute_positions.size()) + " sampled positions";
            ImGui::SetTooltip("%s", tip.c_str());
        }
        if (ImPlot::IsPlotHovered() && k == 2) {
            const int l = int(std::lround(ImPlot::GetPlotMousePos().x));
            if (l >= 0 && l < int(t.sink_mass.size()))
                ImGui::SetTooltip("layer %d: the first %d tokens receive %.3f of every row's attention (mean over heads "
                                  "and rows, exact causal softmax)", l, t.sinks, t.sink_mass[size_t(l)]);
        }
        ImPlot::EndPlot();
    }
}

void draw_settings(App& app) {
    StreamingState& st = app.streaming;
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("0000,0000,0000 ").x);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s", st.windows_edit.c_str());
    if (ImGui::InputText("windows", buf, sizeof buf, ImGuiInputTextFlags_EnterReturnsTrue)) {
        try {
            parse_window_list(buf, "windows");
            st.settings.windows = buf, st.error.clear();
        } catch (const Error& e) {
            st.error = e.what();
        }
    }
    st.windows_edit = buf;
    ImGui::SetItemTooltip("cache sizes w of recent tokens, comma-separated; Enter applies (each costs three passes)");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("0000").x + ImGui::GetFrameHeight() * 2);
    int sinks = st.settings.sinks;
    if (ImGui::InputInt("sinks", &sinks) && sinks >= 0 && sinks <= 64) st.settings.sinks = sinks;
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("0000").x + ImGui::GetFrameHeight() * 2);
    int samples = st.settings.recompute_samples;
    if (ImGui::InputInt("recomputed positions", &samples) && samples >= 0 && samples <= 64)
        st.settings.recompute_samples = samples;
    ImGui::SetItemTooltip("positions per window the paper's baseline predicts with a fresh pass over the w tokens before "
                          "them (0: skip it)");
    if (!st.error.empty()) ImGui::TextColored(ImVec4(1, 0.5f, 0.45f, 1), "%s", st.error.c_str());
}

/// The numbers the plots draw, one row per window: the same the lesson's check reports.
void draw_numbers(const StreamingTable& t) {
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
    const bool recompute = !t.recompute_positions.empty();
    if (!ImGui::BeginTable("##streaming_numbers", recompute ? 6 : 5, flags)) return;
    const std::string s = std::to_string(t.sinks);
    ImGui::TableSetupColumn("w");
    ImGui::TableSetupColumn("window alone");
    ImGui::TableSetupColumn((s + " sinks, cache positions").c_str());
    ImGui::TableSetupColumn((s + " sinks, text positions").c_str());
    ImGui::TableSetupColumn("full attention");
    if (recompute) ImGui::TableSetupColumn(("recomputed windows / full, " + std::to_string(t.recompute_positions.size()) +
                                            " sampled positions").c_str());
    ImGui::TableHeadersRow();
    for (const StreamingRow& r : t.rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn(), ImGui::Text("%d", r.window);
        ImGui::TableNextColumn(), ImGui::Text("%.2f (%.2f×)", r.window_only, r.window_only / t.full);
        ImGui::TableNextColumn(), ImGui::Text("%.2f (%.2f×)", r.sinks_cache, r.sinks_cache / t.full);
        ImGui::TableNextColumn(), ImGui::Text("%.2f (%.2f×)", r.sinks_text, r.sinks_text / t.full);
        ImGui::TableNextColumn(), ImGui::Text("%.2f", t.full);
        if (recompute) ImGui::TableNextColumn(), ImGui::Text("%.2f / %.2f", r.recompute, r.full_at_sampled);
    }
    ImGui::EndTable();
    ImGui::SetItemTooltip("perplexity with every layer's attention replaced; (×): ÷ full attention's on the same positions");
}

void record_values(App& app, const StreamingTable& t, const char* window) {
    HeatmapRecord record;
    record.panel = window, record.instance = "StreamingLLM table";
    record.title = "perplexity per window and method; attention on the sinks per layer";
    record.badges = streaming_named_values(t);
    app.layout_record.heatmaps.push_back(std::move(record));
}

}  // namespace

void draw_streaming_panel(App& app, const PanelEntry& self) {
    StreamingState& st = app.streaming;
    const bool visible = ImGui::Begin(self.window);
    st.visible = visible;
    const std::string key = streaming_key(app);
    st.table.update(app.runs, key, visible, worker_free_for_views(app), [&] { return make_job(app); });
    if (!visible) {
        ImGui::End();
        return;
    }
    draw_settings(app);
    if (st.table.job && st.step) {
        std::string step;
        {
            std::lock_guard<std::mutex> lock(*st.step_mutex);
            step = *st.step;
        }
        ImGui::SameLine();
        ImGui::TextDisabled("computing (%.0f s): %s", st.table.job->seconds(), step.c_str());
        ImGui::SameLine();
        if (ImGui::SmallButton("cancel")) st.table.job->cancel(), st.table.key = key;
    }
    if (!st.table.error.empty() && !st.table.stale(key)) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.5f, 0.45f, 1));
        ImGui::TextWrapped("No StreamingLLM table: %s", st.table.error.c_str());
        ImGui::PopStyleColor();
    } else if (!st.table.result || !st.table.result->table) {
        hint_text("Running the decoder with every window, with and without sinks (three passes per window, about ten "
                  "seconds each on 2 cores at 4 700 tokens)…");
    } else {
        const StreamingTable& t = *st.table.result->table;
        char caption[160];
        std::snprintf(caption, sizeof caption, "%d tokens, every layer and head replaced; perplexity over positions 0-%d%s",
                      t.tokens, t.tokens - 2, st.table.stale(key) ? " (updating…)" : "");
        hint_text(caption);
        draw_numbers(t);
        record_values(app, t, self.window);
        // A short panel scrolls rather than squash the curves under their legends.
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        draw_plots(t, ImVec2(avail.x, std::max(16 * ImGui::GetTextLineHeightWithSpacing(), avail.y)));
    }
    ImGui::End();
}

void save_streaming_session(const App& app, nlohmann::json& j) { j["streaming"] = streaming_settings_to_json(app.streaming.settings); }

void load_streaming_session(App& app, const nlohmann::json& j) {
    StreamingState st;
    if (j.contains("streaming")) st.settings = streaming_settings_from_json(j["streaming"], "the session's streaming");
    st.windows_edit = st.settings.windows;
    app.streaming = st;
}

bool streaming_busy(const App& app) { return app.streaming.table.pending; }

PanelFigure streaming_panel_figure(const App& app) {
    const auto view = app.streaming.table.result;
    if (!view || !view->table) return {{}, "the table is not computed yet: show the Streaming tab on a decoder's text"};
    // Every layer is replaced: the title names the text, not the Input panel's layer.
    return {chart_builder(figure::streaming_figure(*view->table), "text, " + std::to_string(view->table->tokens) + " tokens"),
            ""};
}

}  // namespace attnscope::gui
