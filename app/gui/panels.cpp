#include "app/gui/panels.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "app/gui/app.h"
#include "core/error.h"

namespace attnscope::gui {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

const PanelEntry kPanels[] = {
    {kInputWindow, "input", DockSlot::Left, draw_input_panel,
     [](App& a) { a.input.reset(), a.input.tensors_edit.clear(); }, save_input_session, load_input_session},
    {kVariantsWindow, "variants", DockSlot::LeftBottom, draw_variants_panel, [](App& a) { a.variants.reset(); },
     save_variants_session, load_variants_session},
    {kLshWindow, "lsh", DockSlot::Bottom, draw_lsh_panel, [](App& a) { a.lsh.reset(); }, save_lsh_session,
     load_lsh_session},
    {kSpectrumWindow, "spectrum", DockSlot::Bottom, draw_spectrum_panel, [](App& a) { a.spectrum.reset(); },
     save_spectrum_session, load_spectrum_session},
    {kPerformanceWindow, "performance", DockSlot::Bottom, draw_performance_panel, [](App& a) { a.perf.reset(); },
     save_performance_session, load_performance_session},
    {kDebugWindow, "debug", DockSlot::Bottom, draw_debug_panel, [](App& a) { a.debug.reset(); }, nullptr, nullptr},
    {kSweepWindow, "sweep", DockSlot::Bottom, draw_sweep_panel, [](App& a) { a.metric_sweep.reset(); },
     save_sweep_session, load_sweep_session},
    {kErrorCostWindow, "errcost", DockSlot::Bottom, draw_error_cost_panel, [](App& a) { a.error_cost.reset(); },
     save_error_cost_session, load_error_cost_session},
    {kHeadsWindow, "heads", DockSlot::Bottom, draw_heads_panel, [](App& a) { a.heads_view.reset(); }, nullptr, nullptr},
    {kSinksWindow, "sinks", DockSlot::Bottom, draw_sinks_panel, [](App& a) { a.sinks.reset(); }, save_sinks_session,
     load_sinks_session},
    {kMatricesWindow, "matrices", DockSlot::Centre, draw_matrices_panel, [](App& a) { a.view.reset(); },
     save_matrices_session, load_matrices_session},
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

void draw_panels(App& app) {
    // Presentation mode submits only the matrices: ImGui hides the dock nodes of windows not submitted this
    // frame, so the matrices take the whole height and width.
    for (const PanelEntry& p : kPanels)
        if (!app.view.presentation || std::string(p.window) == kMatricesWindow) p.draw(app);
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
    for (const PanelEntry& p : kPanels) p.reset(app);
    app.lesson.open = false, app.lesson.id.clear(), app.lesson.focus.clear();
    app.exports.reset();
    app.dirty = true;
}

}  // namespace attnscope::gui
