#include "panels.h"

#include <cctype>

#include "app.h"
#include "core/error.h"

namespace attnscope::gui {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

const PanelEntry kPanels[] = {
    {kInputWindow, "input", DockSlot::Left, draw_input_panel,
     [](App& a) { a.input.reset(), a.input.tensors_edit.clear(); }},
    {kVariantsWindow, "variants", DockSlot::LeftBottom, draw_variants_panel, [](App& a) { a.variants.reset(); }},
    {kLshWindow, "lsh", DockSlot::Bottom, draw_lsh_panel, [](App& a) { a.lsh.reset(); }},
    {kSpectrumWindow, "spectrum", DockSlot::Bottom, draw_spectrum_panel, [](App& a) { a.spectrum.reset(); }},
    {kPerformanceWindow, "performance", DockSlot::Bottom, draw_performance_panel, [](App& a) { a.perf.reset(); }},
    {kDebugWindow, "debug", DockSlot::Bottom, draw_debug_panel, [](App& a) { a.debug.reset(); }},
    {kSweepWindow, "sweep", DockSlot::Bottom, draw_sweep_panel, [](App& a) { a.metric_sweep.reset(); }},
    {kMatricesWindow, "matrices", DockSlot::Centre, draw_matrices_panel, [](App& a) { a.view.reset(); }},
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
    for (const PanelEntry& p : kPanels) p.draw(app);
}

void reset_all_panels(App& app) {
    for (const PanelEntry& p : kPanels) p.reset(app);
    app.lesson.open = false, app.lesson.id.clear(), app.lesson.focus.clear();
    app.exports.reset();
    app.dirty = true;
}

}  // namespace attnscope::gui
