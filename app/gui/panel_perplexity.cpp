// attnscope — Perplexity panel: on a decoder's text, each Variants instance replaces the attention of the chosen layers
// (every head, causal) and the decoder runs to its next-token predictions; a table gives each instance's perplexity,
// its change against the exact model, KL(exact ‖ it) and top-1 agreement, and a plot the per-position NLL of every
// instance beside the exact model's. The plot's cursor and the token strips share one position (app.view.hover_*).
// Computed as a worker job while the tab is visible; an edit cancels it (core/session/decoder_whatif.h).
#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "app/gui/app.h"
#include "app/gui/matrix_badges.h"
#include "app/gui/panel_figures.h"
#include "app/gui/panels.h"
#include "app/gui/plot_room.h"
#include "core/data/model_paths.h"
#include "core/data/text_input.h"
#include "core/data/text_model.h"
#include "core/figure/perplexity_figure.h"
#include "core/json_fields.h"
#include "core/session/decoder_whatif.h"
#include "core/variants/instance_label.h"
#include "core/variants/registry.h"

namespace attnscope::gui {

/// The what-ifs the panel shows: the exact model's per-position loss and each instance's, on the same tokens.
struct PerplexityView {
    std::vector<std::string> tokens;  // the text's pieces, printable
    std::vector<double> exact_nll;    // (n − 1)
    double exact_perplexity = 0;
    std::vector<figure::PerplexityCurve> curves;  // one per Variants slot, in slot order
    std::string layers;               // "all 30 layers", "layers 3-7", …
};

namespace {

std::string perplexity_key(const App& app) {
    return analysis_input_key(app) + '\x1f' + slots_key(app) + '\x1f' + app.perplexity.layers;
}

std::shared_ptr<ViewJob<PerplexityView>::Job> make_job(App& app) {
    const InputSpec input = app.effective_input();
    std::vector<VariantRequest> requests;
    for (const VariantSlot& s : app.variants.slots) requests.push_back({s.id, s.params});
    const std::string layers_text = app.perplexity.layers;
    auto done = std::make_shared<std::atomic<int>>(0);
    app.perplexity.done = done, app.perplexity.total = int(requests.size());
    return std::make_shared<ViewJob<PerplexityView>::Job>(
        "perplexity what-if", [=](JobContext& ctx) -> std::shared_ptr<const PerplexityView> {
            const ModelChoice model = resolve_model(input.model_dir);
            if (input.mode != InputMode::Text || !model.decoder)
                throw Error("perplexity is a decoder's next-token loss: choose SmolLM2 (or a .gguf file) in Input ▸ "
                            "model and give it text");
            if (requests.empty()) throw Error("add a variant in the Variants panel: each one replaces the attention");
            const auto decoder = load_decoder_model(model.path);
            std::vector<int> ids = tokenize_text(input.text, model.path);
            const int context = decoder->decoder.config().context;
            if (int(ids.size()) > context) {
                if (!input.truncate)
                    throw Error("the text has " + std::to_string(ids.size()) + " tokens, more than the decoder's " +
                                std::to_string(context) + ": shorten it or tick truncate in the Input panel");
                ids.resize(size_t(context));
            }
            const int layers = decoder->decoder.config().layers;
            const LayerSpan span = parse_layer_span(layers_text, layers, "layers");
            auto view = std::make_shared<PerplexityView>();
            view->layers = span.text(layers);
            for (int id : ids) view->tokens.push_back(decoder->tokenizer.display(id));
            const ExactNextTokens exact = exact_next_tokens(decoder->decoder, ids);
            view->exact_nll = exact.nll, view->exact_perplexity = exact.perplexity;
            for (const VariantRequest& r : requests) {
                if (ctx.cancelled()) return nullptr;
                try {
                    PerplexityWhatIf w = run_perplexity_whatif(decoder->decoder, exact, span, r, ctx.backend(),
                                                               [&ctx] { return ctx.cancelled(); });
                    view->curves.push_back({instance_label(find_variant(r.id).info(), r.params), std::move(w.result)});
                } catch (const Error& e) {
                    if (ctx.cancelled()) return nullptr;
                    throw;
                }
                ++*done;
            }
            return view;
        });
}

/// The table: one row per instance (and the exact model first).
void draw_table(const PerplexityView& v) {
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##ppl", 5, flags)) return;
    ImGui::TableSetupColumn("instance");
    ImGui::TableSetupColumn("perplexity");
    ImGui::TableSetupColumn("Δ vs exact");
    ImGui::TableSetupColumn("KL(exact ‖ it)");
    ImGui::TableSetupColumn("top-1 agreement");
    ImGui::TableHeadersRow();
    ImGui::TableNextRow();
    ImGui::TableNextColumn(), ImGui::TextUnformatted("exact model");
    ImGui::TableNextColumn(), ImGui::Text("%.3f", v.exact_perplexity);
    ImGui::TableNextColumn(), ImGui::TextDisabled("—");
    ImGui::TableNextColumn(), ImGui::TextDisabled("—");
    ImGui::TableNextColumn(), ImGui::TextDisabled("—");
    for (const figure::PerplexityCurve& c : v.curves) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn(), ImGui::TextUnformatted(c.name.c_str());
        ImGui::TableNextColumn(), ImGui::Text("%.3f", c.result.perplexity);
        ImGui::TableNextColumn(), ImGui::Text("%+.3f", c.result.delta_perplexity);
        ImGui::TableNextColumn(), ImGui::Text("%.4f nats", c.result.mean_kl);
        ImGui::TableNextColumn(), ImGui::Text("%.3f", c.result.top1_agreement);
    }
    ImGui::EndTable();
    ImGui::SetItemTooltip("perplexity = exp(mean next-token NLL over the text's %zu positions); KL: mean over positions "
                          "of KL(exact next-token distribution ‖ the instance's); top-1: share of positions whose most "
                          "likely next token is the exact model's",
                          v.exact_nll.size());
}

void draw_curves(App& app, const PerplexityView& v, ImVec2 size) {
    if (!plot_fits(size) || !ImPlot::BeginPlot("##nll", size, ImPlotFlags_NoMouseText)) return;
    ImPlot::SetupAxes("position t (predicting token t + 1)", "NLL (nats)",
                      ImPlotAxisFlags_AutoFit, ImPlotAxisFlags_AutoFit);
    ImPlot::SetupLegend(ImPlotLocation_NorthEast, ImPlotLegendFlags_Outside);
    ImPlot::SetupFinish();
    const size_t n = v.exact_nll.size();
    std::vector<double> x(n);
    for (size_t t = 0; t < n; ++t) x[t] = double(t);
    const std::vector<double> exact = figure::running_mean(v.exact_nll, figure::kNllSmoothing);
    ImPlotSpec spec;
    spec.LineColor = ImGui::GetStyleColorVec4(ImGuiCol_Text);
    spec.LineWeight = 2;
    ImPlot::PlotLine("exact model", x.data(), exact.data(), int(n), spec);
    for (const figure::PerplexityCurve& c : v.curves) {
        const std::vector<double> y = figure::running_mean(c.result.nll, figure::kNllSmoothing);
        ImPlot::PlotLine(c.name.c_str(), x.data(), y.data(), int(n));
    }
    // The position a token strip or a matrix cell points at, as a vertical line.
    const int shown = app.view.shown_i;
    if (shown >= 0 && shown < int(n)) {
        const double at = shown;
        ImPlotSpec guide;
        guide.LineColor = ImVec4(1, 1, 1, 0.5f);
        ImPlot::PlotInfLines("##cursor", &at, 1, guide);
    }
    if (ImPlot::IsPlotHovered()) {
        const int t = int(std::lround(ImPlot::GetPlotMousePos().x));
        if (t >= 0 && t < int(n)) {
            app.view.hover_i = app.view.hover_j = t;  // the token strips and matrices mark the same position
            std::string text = "position " + std::to_string(t) + ": '" + v.tokens[size_t(t)] + "' → next '" +
                               v.tokens[size_t(t) + 1] + "'\nexact model: NLL " +
                               std::to_string(v.exact_nll[size_t(t)]).substr(0, 6);
            for (const figure::PerplexityCurve& c : v.curves)
                text += "\n" + c.name + ": NLL " + std::to_string(c.result.nll[size_t(t)]).substr(0, 6);
            ImGui::SetTooltip("%s", text.c_str());
        }
    }
    ImPlot::EndPlot();
}

}  // namespace

void draw_perplexity_panel(App& app, const PanelEntry& self) {
    PerplexityState& st = app.perplexity;
    const bool visible = ImGui::Begin(self.window);
    st.visible = visible;
    const std::string key = perplexity_key(app);
    st.whatif.update(app.runs, key, visible, worker_free_for_views(app), [&] { return make_job(app); });
    if (!visible) {
        ImGui::End();
        return;
    }
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("00-00 ").x + ImGui::GetStyle().FramePadding.x * 2);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s", st.layers_edit.c_str());
    if (ImGui::InputText("layers replaced", buf, sizeof buf, ImGuiInputTextFlags_EnterReturnsTrue)) {
        st.layers_edit = buf;
        try {
            // Checked against the decoder shown now; the job checks again against the one it runs.
            const int layers = app.snap && app.snap->input_info.model.layers > 0 ? app.snap->input_info.model.layers : 1 << 20;
            parse_layer_span(st.layers_edit, layers, "layers");
            st.layers = st.layers_edit, st.layers_error.clear();
        } catch (const Error& e) {
            st.layers_error = e.what();
        }
    } else {
        st.layers_edit = buf;
    }
    ImGui::SetItemTooltip("the decoder layers whose attention each instance replaces (every head, causal): a layer "
                          "(20), a range (15-29) or all; Enter applies");
    if (!st.layers_error.empty()) {
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(1, 0.5f, 0.45f, 1), "%s", st.layers_error.c_str());
    }
    if (st.whatif.job && st.done) {
        ImGui::SameLine();
        ImGui::TextDisabled("computing: %d of %d instances done…", st.done->load(), st.total);
        ImGui::SameLine();
        if (ImGui::SmallButton("cancel")) st.whatif.job->cancel(), st.whatif.key = key;
    }
    if (!st.whatif.error.empty() && !st.whatif.stale(key)) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.5f, 0.45f, 1));
        ImGui::TextWrapped("No perplexity: %s", st.whatif.error.c_str());
        ImGui::PopStyleColor();
    } else if (!st.whatif.result) {
        hint_text("Running the decoder with each instance in its attention…");
    } else {
        const PerplexityView& v = *st.whatif.result;
        char caption[320];  // wrapped: a narrow panel or a large font must not cut what the numbers are against
        std::snprintf(caption, sizeof caption,
                      "attention of %s replaced by each instance (every head, causal); %zu next-token predictions "
                      "against the exact model; the curves: each position's NLL, running mean over %d%s",
                      v.layers.c_str(), v.exact_nll.size(), figure::kNllSmoothing, st.whatif.stale(key) ? " (updating…)" : "");
        hint_text(caption);
        draw_table(v);
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        draw_curves(app, v, ImVec2(avail.x, std::max(150.0f, avail.y)));
    }
    ImGui::End();
}

void save_perplexity_session(const App& app, nlohmann::json& j) { j["perplexity"] = {{"layers", app.perplexity.layers}}; }

void load_perplexity_session(App& app, const nlohmann::json& j) {
    PerplexityState st;
    if (j.contains("perplexity")) {
        st.layers = json_string(j["perplexity"], "layers", "all", "the session's perplexity");
        parse_layer_span(st.layers, 1 << 20, "the session's perplexity 'layers'");  // the model's range: at run time
        st.layers_edit = st.layers;
    }
    app.perplexity = st;
}

bool perplexity_busy(const App& app) { return app.perplexity.whatif.pending; }

std::optional<Badge> perplexity_badge(const App& app, int slot) {
    const PerplexityState& st = app.perplexity;
    if (!st.whatif.result || st.whatif.stale(perplexity_key(app))) return std::nullopt;
    const PerplexityView& v = *st.whatif.result;
    if (slot < 0 || slot >= int(v.curves.size())) return std::nullopt;
    const NextTokenComparison& c = v.curves[size_t(slot)].result;
    char value[64], short_value[32];
    std::snprintf(value, sizeof value, "%.2f (%+.2f)", c.perplexity, c.delta_perplexity);
    std::snprintf(short_value, sizeof short_value, "%.3g", c.perplexity);
    const double rise = c.delta_perplexity / std::max(1e-9, c.exact_perplexity);  // 0: no loss; 0.1: 10% worse
    const ImVec4 colour = rise < 0.02 ? ImVec4(0.45f, 0.80f, 0.45f, 1) : rise < 0.15 ? ImVec4(0.95f, 0.75f, 0.30f, 1)
                                                                                      : ImVec4(0.95f, 0.45f, 0.40f, 1);
    return Badge{"perplexity", "PPL", "PPL", value, short_value, c.perplexity, colour,
                 "the decoder's perplexity with this instance in the attention of " + v.layers +
                     " (every head), and its change against the exact model's " +
                     std::to_string(v.exact_perplexity).substr(0, 6) + " (Perplexity panel)",
                 true};
}

PanelFigure perplexity_panel_figure(const App& app) {
    const auto view = app.perplexity.whatif.result;
    if (!view) return {{}, "the what-ifs are not computed yet: show the Perplexity tab on a decoder's text"};
    // The what-ifs replace the layers the panel names (its figure's title says which), not the Input panel's one.
    const std::string title = "text, " + std::to_string(view->tokens.size()) + " tokens";
    return {chart_builder(figure::perplexity_figure(view->exact_nll, view->exact_perplexity, view->curves, view->layers),
                          title),
            ""};
}

}  // namespace attnscope::gui
