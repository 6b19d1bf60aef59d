// attnscope — the panel table as text or JSON (see panel_list.h).
#include "app/gui/panel_list.h"

#include <nlohmann/json.hpp>
#include <string>

#include "app/gui/panels.h"

namespace attnscope::gui {

namespace {

const char* slot_name(DockSlot s) {
    switch (s) {
        case DockSlot::Left: return "left";
        case DockSlot::LeftBottom: return "left-bottom";
        case DockSlot::Centre: return "centre";
        case DockSlot::Bottom: return "bottom";
    }
    return "?";
}

}  // namespace

void print_panel_list(std::ostream& out, bool json) {
    if (json) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const PanelEntry& p : panels()) {
            nlohmann::ordered_json keys = nlohmann::ordered_json::array();
            for (const char* k : p.session_keys)
                if (k) keys.push_back(k);
            list.push_back({{"alias", p.alias}, {"window", p.window}, {"slot", slot_name(p.slot)}, {"front", p.front},
                            {"computes", p.busy != nullptr}, {"session_keys", keys}, {"figure", p.figure != nullptr}});
        }
        out << list.dump(2) << "\n";
        return;
    }
    // Tabs, because titles hold spaces ("LSH buckets"): scripts split with cut -f or awk -F'\t'.
    for (const PanelEntry& p : panels()) {
        std::string keys;
        for (const char* k : p.session_keys)
            if (k) keys += (keys.empty() ? "" : " ") + std::string(k);
        out << p.alias << '\t' << p.window << '\t' << (p.busy ? "computes" : "-") << '\t' << (keys.empty() ? "-" : keys)
            << '\t' << (p.figure ? "figure" : "-") << "\n";
    }
}

}  // namespace attnscope::gui
