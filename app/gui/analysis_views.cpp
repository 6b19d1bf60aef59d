// attnscope — what the analysis views (error–cost, heads, sinks) share: the keys that say when their inputs
// changed and when the worker is free for them (whether one still computes is its row's busy, panels.h).
#include <string>

#include "app/gui/app.h"
#include "core/session/variant_json.h"

namespace attnscope::gui {

std::string analysis_input_key(const App& app) {
    const InputSpec in = app.effective_input();
    if (in.mode == InputMode::Text)  // the layer and head do not change these views' text results
        return "text\x1f" + in.text + '\x1f' + in.model_dir + '\x1f' + (in.truncate ? "truncate" : "");
    return "generation " + std::to_string(app.runs.posted_generation());
}

std::string slots_key(const App& app) {
    std::string key;
    for (const VariantSlot& s : app.variants.slots) {
        key += s.id;
        for (const auto& [name, value] : assignments_of({s.id, s.params})) key += ':' + name + '=' + value;
        key += '\n';
    }
    return key;
}

bool worker_free_for_views(const App& app) { return app.runs.state() != WorkerState::Running && !app.dirty; }

}  // namespace attnscope::gui
