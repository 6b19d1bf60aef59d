#include "app/gui/panels.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include <imgui.h>
#include <imgui_internal.h>

#include "app/gui/app.h"
#include "core/error.h"

namespace attnscope::gui {

// Each panel's functions, defined in its own file and called only through the table below (a definition whose
// signature differs from its declaration here fails to link).

/// Input (panel_input.cpp): where Q, K and V come from.
void draw_input_panel(App& app, const PanelEntry& self);
void save_input_session(const App& app, nlohmann::json& session);
void load_input_session(App& app, const nlohmann::json& session);
/// Variants (panel_variants.cpp): the ordered selection and each one's parameters.
void draw_variants_panel(App& app, const PanelEntry& self);
void save_variants_session(const App& app, nlohmann::json& session);
void load_variants_session(App& app, const nlohmann::json& session);
/// LSH buckets (panel_lsh.cpp): an lsh run's buckets, sorted order and collisions.
void draw_lsh_panel(App& app, const PanelEntry& self);
void save_lsh_session(const App& app, nlohmann::json& session);
PanelFigure lsh_panel_figure(const App& app);  // matrix_exports.cpp
void load_lsh_session(App& app, const nlohmann::json& session);
/// Spectrum (panel_spectrum.cpp): singular values of P and, for text, the layers × heads map.
void draw_spectrum_panel(App& app, const PanelEntry& self);
void save_spectrum_session(const App& app, nlohmann::json& session);
void load_spectrum_session(App& app, const nlohmann::json& session);
bool spectrum_busy(const App& app);
PanelFigure spectrum_panel_figure(const App& app);
/// Performance (panel_performance.cpp): time and memory against n (the bench engine).
void draw_performance_panel(App& app, const PanelEntry& self);
void save_performance_session(const App& app, nlohmann::json& session);
void load_performance_session(App& app, const nlohmann::json& session);
bool performance_busy(const App& app);
PanelFigure performance_panel_figure(const App& app);
/// Debug (panel_debug.cpp): frame times, worker state, GL strings, demos.
void draw_debug_panel(App& app, const PanelEntry& self);
/// Sweep (panel_sweep.cpp): a metric against one parameter (sweep_busy is declared in app.h).
void draw_sweep_panel(App& app, const PanelEntry& self);
void save_sweep_session(const App& app, nlohmann::json& session);
void load_sweep_session(App& app, const nlohmann::json& session);
PanelFigure sweep_panel_figure(const App& app);
/// Error–cost (panel_error_cost.cpp): every instance's cost against its error, Pareto front.
void draw_error_cost_panel(App& app, const PanelEntry& self);
void save_error_cost_session(const App& app, nlohmann::json& session);
void load_error_cost_session(App& app, const nlohmann::json& session);
bool error_cost_busy(const App& app);
PanelFigure error_cost_panel_figure(const App& app);
/// Heads (panel_heads.cpp): mass kept per layer × head.
void draw_heads_panel(App& app, const PanelEntry& self);
bool heads_busy(const App& app);
PanelFigure heads_panel_figure(const App& app);
/// Sinks (panel_sinks.cpp): mean exact attention each key receives.
void draw_sinks_panel(App& app, const PanelEntry& self);
void save_sinks_session(const App& app, nlohmann::json& session);
void load_sinks_session(App& app, const nlohmann::json& session);
bool sinks_busy(const App& app);
PanelFigure sinks_panel_figure(const App& app);
/// Perplexity (panel_perplexity.cpp): the decoder's next-token loss with each instance in its attention.
void draw_perplexity_panel(App& app, const PanelEntry& self);
void save_perplexity_session(const App& app, nlohmann::json& session);
void load_perplexity_session(App& app, const nlohmann::json& session);
bool perplexity_busy(const App& app);
PanelFigure perplexity_panel_figure(const App& app);
/// Streaming (panel_streaming.cpp): StreamingLLM's perplexity table on the decoder's text.
void draw_streaming_panel(App& app, const PanelEntry& self);
void save_streaming_session(const App& app, nlohmann::json& session);
void load_streaming_session(App& app, const nlohmann::json& session);
bool streaming_busy(const App& app);
PanelFigure streaming_panel_figure(const App& app);
/// Matrices (panel_matrix.cpp): every view's heatmap with badges, the banner of errors.
void draw_matrices_panel(App& app, const PanelEntry& self);
void save_matrices_session(const App& app, nlohmann::json& session);
void load_matrices_session(App& app, const nlohmann::json& session);
PanelFigure matrices_panel_figure(const App& app);  // matrix_exports.cpp

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

const PanelEntry kPanels[] = {
    {.window = "Input", .alias = "input", .slot = DockSlot::Left, .draw = draw_input_panel,
     .reset = [](App& a) { a.input.reset(), a.input.tensors_edit.clear(); }, .save = save_input_session,
     .load = load_input_session, .session_keys = {"input", "view.export_dir"}},
    {.window = "Variants", .alias = "variants", .slot = DockSlot::LeftBottom, .draw = draw_variants_panel,
     .reset = [](App& a) { a.variants.reset(); }, .save = save_variants_session, .load = load_variants_session,
     .session_keys = {"variants"}},
    {.window = "LSH buckets", .alias = "lsh", .slot = DockSlot::Bottom, .draw = draw_lsh_panel,
     .reset = [](App& a) { a.lsh.reset(); }, .save = save_lsh_session, .load = load_lsh_session,
     .figure = lsh_panel_figure, .session_keys = {"view.lsh_preview"}},
    {.window = "Spectrum", .alias = "spectrum", .slot = DockSlot::Bottom, .front = true, .draw = draw_spectrum_panel,
     .reset = [](App& a) { a.spectrum.reset(); }, .save = save_spectrum_session, .load = load_spectrum_session,
     .busy = spectrum_busy, .figure = spectrum_panel_figure, .session_keys = {"view.spectrum", "view.grid_index", "view.grid_fraction"}},
    {.window = "Performance", .alias = "performance", .slot = DockSlot::Bottom, .draw = draw_performance_panel,
     .reset = [](App& a) { a.perf.reset(); }, .save = save_performance_session, .load = load_performance_session,
     .busy = performance_busy, .figure = performance_panel_figure, .session_keys = {"performance"}},
    {.window = "Debug", .alias = "debug", .slot = DockSlot::Bottom, .draw = draw_debug_panel,
     .reset = [](App& a) { a.debug.reset(); }},
    {.window = "Sweep", .alias = "sweep", .slot = DockSlot::Bottom, .draw = draw_sweep_panel,
     .reset = [](App& a) { a.metric_sweep.reset(); }, .save = save_sweep_session, .load = load_sweep_session,
     .busy = sweep_busy, .figure = sweep_panel_figure, .session_keys = {"sweep"}},
    {.window = "Error–cost", .alias = "errcost", .slot = DockSlot::Bottom, .draw = draw_error_cost_panel,
     .reset = [](App& a) { a.error_cost.reset(); }, .save = save_error_cost_session, .load = load_error_cost_session,
     .busy = error_cost_busy, .figure = error_cost_panel_figure, .session_keys = {"error_cost"}},
    {.window = "Heads", .alias = "heads", .slot = DockSlot::Bottom, .draw = draw_heads_panel,
     .reset = [](App& a) { a.heads_view.reset(); }, .busy = heads_busy, .figure = heads_panel_figure},
    {.window = "Sinks", .alias = "sinks", .slot = DockSlot::Bottom, .draw = draw_sinks_panel,
     .reset = [](App& a) { a.sinks.reset(); }, .save = save_sinks_session, .load = load_sinks_session,
     .busy = sinks_busy, .figure = sinks_panel_figure, .session_keys = {"sinks"}},
    {.window = "Perplexity", .alias = "perplexity", .slot = DockSlot::Bottom, .draw = draw_perplexity_panel,
     .reset = [](App& a) { a.perplexity.reset(); }, .save = save_perplexity_session, .load = load_perplexity_session,
     .busy = perplexity_busy, .figure = perplexity_panel_figure, .session_keys = {"perplexity"}},
    {.window = "Streaming", .alias = "streaming", .slot = DockSlot::Bottom, .draw = draw_streaming_panel,
     .reset = [](App& a) { a.streaming.reset(); }, .save = save_streaming_session, .load = load_streaming_session,
     .busy = streaming_busy, .figure = streaming_panel_figure, .session_keys = {"streaming"}},
    {.window = "Matrices", .alias = "matrices", .slot = DockSlot::Centre, .draw = draw_matrices_panel,
     .reset = [](App& a) { a.view.reset(); }, .save = save_matrices_session, .load = load_matrices_session,
     .figure = matrices_panel_figure, .session_keys = {"view"}},
};

}  // namespace

std::span<const PanelEntry> panels() { return kPanels; }

const PanelEntry& find_panel(const std::string& name) {
    const std::string l = lower(name);
    for (const PanelEntry& p : kPanels)
        if (l == p.alias || l == lower(p.window)) return p;
    for (const PanelEntry& p : kPanels)
        if (!l.empty() && std::string(p.alias).rfind(l, 0) == 0) return p;
    std::string known;
    for (const PanelEntry& p : kPanels) known += (known.empty() ? "" : ", ") + std::string(p.alias);
    throw Error("unknown panel '" + name + "': choose " + known);
}

const PanelEntry& panel(std::string_view alias) {
    for (const PanelEntry& p : kPanels)
        if (alias == p.alias) return p;
    throw Error("no panel has the alias '" + std::string(alias) + "' (app/gui/panels.cpp lists them)");
}

void draw_panels(App& app) {
    // Presentation mode submits only the centre panel (the matrices): ImGui hides the dock nodes of windows not
    // submitted this frame, so it takes the whole height and width.
    for (const PanelEntry& p : kPanels)
        if (!app.view.presentation || p.slot == DockSlot::Centre) p.draw(app, p);
    // The panel the user worked in last is File → Export figure's "this panel" (a menu takes the focus while open,
    // so the last panel window that had it is kept).
    const ImGuiWindow* nav = ImGui::GetCurrentContext()->NavWindow;
    if (nav && nav->RootWindow)
        for (const PanelEntry& p : kPanels)
            if (std::string_view(nav->RootWindow->Name) == p.window) app.exports.focused = p.alias;
}

void save_panels(const App& app, nlohmann::json& session) {
    for (const PanelEntry& p : kPanels)
        if (p.save) p.save(app, session);
}

void load_panels(App& app, const nlohmann::json& session) {
    for (const PanelEntry& p : kPanels)
        if (p.load) p.load(app, session);
}

void reset_all_panels(App& app) {
    for (const PanelEntry& p : kPanels)
        if (p.reset) p.reset(app);
    app.lesson.open = false, app.lesson.id.clear(), app.lesson.focus.clear();
    app.exports.reset();
    app.dirty = true;
}

bool any_panel_busy(const App& app) {
    for (const PanelEntry& p : kPanels)
        if (p.busy && p.busy(app)) return true;
    return false;
}

}  // namespace attnscope::gui
