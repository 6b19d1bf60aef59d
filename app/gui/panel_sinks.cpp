// attnscope — Sinks panel: the mean exact attention each key position receives, over layers, heads and query rows,
// as bars labelled by token, [CLS]/[SEP] and punctuation coloured by what they are, against the uniform share 1/n.
// Text runs every encoder layer; synthetic and loaded inputs average the heads of their one exact P.
// Computed as a worker job while the tab is visible (core/analysis/key_attention.h).
#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "app/gui/app.h"
#include "app/gui/panel_figures.h"
#include "core/figure/chart_figures.h"
#include "app/gui/panels.h"
#include "app/gui/plot_room.h"
#include "core/analysis/key_attention.h"
#include "core/session/sinks_data.h"
#include "core/json_fields.h"

namespace attnscope::gui {

/// What the bars show (core/analysis/key_attention.h).
struct KeyAttentionView : KeyAttentionProfile {
    explicit KeyAttentionView(KeyAttentionProfile p) : KeyAttentionProfile(std::move(p)) {}
};

namespace {

const ImVec4 kSpecial(0.95f, 0.35f, 0.35f, 1), kPunct(1.0f, 0.72f, 0.25f, 1), kWord(0.35f, 0.62f, 0.95f, 1);

std::shared_ptr<ViewJob<KeyAttentionView>::Job> make_job(const App& app, std::string& why_not) {
    const InputSpec input = app.effective_input();
    if (input.mode == InputMode::Text) {
        TextInputSpec t;
        t.text = input.text, t.model_dir = input.model_dir, t.truncate = input.truncate;
        return std::make_shared<ViewJob<KeyAttentionView>::Job>(
            "attention sinks", [t](JobContext& ctx) -> std::shared_ptr<const KeyAttentionView> {
                auto r = text_key_attention(t, [&ctx] { return ctx.cancelled(); });
                if (!r) return nullptr;
                return std::make_shared<const KeyAttentionView>(key_attention_profile(*r));
            });
    }
    // Synthetic or loaded tensors: the exact P the views already materialised (sinks_matrix picks which).
    const auto snap = app.snap;
    if (!snap) return why_not = "no input yet", nullptr;
    bool causal = false;
    const std::shared_ptr<const Tensor3> P = sinks_matrix(*snap, causal, why_not);
    if (!P) return nullptr;
    return std::make_shared<ViewJob<KeyAttentionView>::Job>(
        "attention sinks", [P, snap, causal](JobContext&) -> std::shared_ptr<const KeyAttentionView> {
            return std::make_shared<const KeyAttentionView>(
                key_attention_profile(*P, snap->heads->tokens, causal, snap->heads->source));
        });
}

/// "uniform 1/n", or for causal rows "uniform over keys j ≤ i": what each key's bar is compared with.
const char* baseline_name(const KeyAttentionView& v) { return v.causal ? "uniform over keys j ≤ i" : "uniform 1/n"; }

void draw_bars(App& app, const KeyAttentionView& v, ImVec2 size) {
    const int n = int(v.received.size());
    std::vector<double> xs[3], ys[3];  // special, punctuation, word
    for (int j = 0; j < n; ++j) {
        const int kind = v.text ? int(token_kind(v.tokens[size_t(j)])) : 2;
        xs[kind].push_back(j), ys[kind].push_back(v.received[size_t(j)]);
    }
    const std::string y_label = std::string("mean attention received (vs ") + baseline_name(v) + ")";
    if (plot_fits(size) && ImPlot::BeginPlot("##sinks", size, ImPlotFlags_NoMouseText)) {
        ImPlot::SetupAxes(v.text ? "key token j" : "key position j", y_label.c_str(), ImPlotAxisFlags_AutoFit,
                          ImPlotAxisFlags_AutoFit);
        if (app.sinks.log_y) ImPlot::SetupAxisScale(ImAxis_Y1, ImPlotScale_Log10);
        ImPlot::SetupLegend(ImPlotLocation_NorthEast, ImPlotLegendFlags_Outside);  // beside the bars, never over them
        // Token labels: every one when they fit, else every step-th (the tooltip names all).
        std::vector<double> ticks;
        std::vector<std::string> labels;
        std::vector<const char*> ptrs;
        if (v.text) {
            float widest = 1;
            for (const auto& t : v.tokens) widest = std::max(widest, ImGui::CalcTextSize(t.c_str()).x + 6);
            const int step = std::max(1, int(std::ceil(widest / (size.x * 0.9f / float(std::max(1, n))))));
            for (int j = 0; j < n; j += step) ticks.push_back(j), labels.push_back(v.tokens[size_t(j)]);
            for (const auto& l : labels) ptrs.push_back(l.c_str());
            ImPlot::SetupAxisTicks(ImAxis_X1, ticks.data(), int(ticks.size()), ptrs.data());
        }
        ImPlot::SetupFinish();
        const char* names[3] = {"special ([CLS], [SEP])", "punctuation", v.text ? "word" : "position"};
        const ImVec4 colors[3] = {kSpecial, kPunct, kWord};
        for (int k = 2; k >= 0; --k) {
            if (xs[k].empty()) continue;
            ImPlotSpec spec;
            spec.FillColor = colors[k], spec.LineColor = colors[k];
            ImPlot::PlotBars(names[k], xs[k].data(), ys[k].data(), int(xs[k].size()), 0.8, spec);
        }
        ImPlotSpec guide;
        guide.LineColor = ImVec4(1, 1, 1, 0.6f);
        if (v.causal) {  // each key's own share: key 0 is seen by every row, the last key by one
            std::vector<double> x(static_cast<size_t>(n));
            for (int j = 0; j < n; ++j) x[size_t(j)] = j;
            ImPlot::PlotLine(baseline_name(v), x.data(), v.uniform.data(), n, guide);
        } else {
            guide.Flags = ImPlotInfLinesFlags_Horizontal;
            ImPlot::PlotInfLines(baseline_name(v), v.uniform.data(), 1, guide);
        }
        if (ImPlot::IsPlotHovered()) {
            const int j = int(std::lround(ImPlot::GetPlotMousePos().x));
            if (j >= 0 && j < n) {
                const double r = v.received[size_t(j)], u = v.uniform[size_t(j)];
                ImGui::SetTooltip("key %d '%s' (%s)\nmean received weight %.4f = %.2f × its share under %s (%.4f%s)", j,
                                  v.tokens[size_t(j)].c_str(),
                                  v.text ? token_kind_name(token_kind(v.tokens[size_t(j)])) : "position", r, r / u,
                                  baseline_name(v), u, v.causal ? " = (1/n)·Σ_{i≥j} 1/(i+1)" : " = 1/n");
            }
        }
        ImPlot::EndPlot();
    }
}

}  // namespace

void draw_sinks_panel(App& app, const PanelEntry& self) {
    SinksState& st = app.sinks;
    const bool visible = ImGui::Begin(self.window);
    st.visible = visible;
    const std::string key = analysis_input_key(app);
    std::string why_not;
    st.profile.update(app.runs, key, visible, worker_free_for_views(app), [&] {
        auto job = make_job(app, why_not);
        if (!job) {  // nothing to average: a job that says why, so the view shows it and stops waiting
            const std::string why = why_not;
            job = std::make_shared<ViewJob<KeyAttentionView>::Job>(
                "attention sinks", [why](JobContext&) -> std::shared_ptr<const KeyAttentionView> { throw Error(why); },
                true);
        }
        return job;
    });
    if (!visible) {
        ImGui::End();
        return;
    }
    ImGui::Checkbox("log y", &st.log_y);
    ImGui::SameLine();
    if (!st.profile.error.empty() && !st.profile.stale(key)) {
        ImGui::NewLine();
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.5f, 0.45f, 1));
        ImGui::TextWrapped("No sink profile: %s", st.profile.error.c_str());
        ImGui::PopStyleColor();
    } else if (!st.profile.result) {
        ImGui::NewLine();
        hint_text("Averaging the exact attention every key receives…");
    } else {
        const KeyAttentionView& v = *st.profile.result;
        // The strongest sinks in words, so the picture has its numbers beside it.
        std::vector<int> order(v.received.size());
        for (size_t j = 0; j < order.size(); ++j) order[j] = int(j);
        // By the weight received (what the bars show): under a causal mask a late key's uniform share is tiny, so
        // ranking by the ratio would crown keys that a few rows glanced at.
        std::sort(order.begin(), order.end(), [&](int a, int b) { return v.received[size_t(a)] > v.received[size_t(b)]; });
        std::string top;
        for (size_t k = 0; k < std::min<size_t>(3, order.size()); ++k) {
            char buf[160];
            const auto j = size_t(order[k]);
            std::snprintf(buf, sizeof buf, "%s'%s' %.3f (%.1f×)", k ? ", " : "", v.tokens[j].c_str(), v.received[j],
                          v.received[j] / v.uniform[j]);
            top += buf;
        }
        ImGui::TextDisabled("mean over %s%s%s — most received: %s (× its share under %s)", v.over.c_str(),
                            v.truncated ? " (text truncated)" : "", st.profile.stale(key) ? " (updating…)" : "", top.c_str(),
                            baseline_name(v));
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        draw_bars(app, v, ImVec2(avail.x, std::max(150.0f, avail.y)));
    }
    ImGui::End();
}

void save_sinks_session(const App& app, nlohmann::json& j) { j["sinks"] = {{"log_y", app.sinks.log_y}}; }

void load_sinks_session(App& app, const nlohmann::json& j) {
    SinksState st;
    if (j.contains("sinks")) st.log_y = json_bool(j["sinks"], "log_y", false, "the session's sinks");
    app.sinks = st;
}

bool sinks_busy(const App& app) { return app.sinks.profile.pending; }

}  // namespace attnscope::gui

namespace attnscope::gui {

PanelFigure sinks_panel_figure(const App& app) {
    const auto view = app.sinks.profile.result;
    if (!view) return {{}, "the bars are not computed yet: show the Sinks tab"};
    // Input without the encoder labels positions: the figure names them positions, not tokens.
    const std::vector<std::string> tokens = view->text ? view->tokens : std::vector<std::string>{};
    return {chart_builder(figure::sinks_figure(tokens, view->received, view->uniform, view->causal, view->over),
                          gui_figure_title(app)),
            ""};
}

}  // namespace attnscope::gui
