// attnscope — session files: input, variants with parameters, view toggles and the dock layout, as JSON.
// Written atomically (write_file_atomically); the last session is restored on start.
#include <imgui.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "app.h"
#include "core/variants/registry.h"

namespace attnscope::gui {

namespace {
constexpr int kSessionVersion = 1;
}

std::string default_session_path() {
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::string(xdg) + "/attnscope/session.json";
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.config/attnscope/session.json";
    return "attnscope-session.json";
}

std::string session_to_json(const App& app) {
    nlohmann::json j;
    j["version"] = kSessionVersion;
    const InputSpec& in = app.input.spec;
    j["input"] = {{"mode", in.mode == InputMode::Synthetic ? "synthetic" : in.mode == InputMode::Text ? "text" : "tensors"},
                  {"scenario", scenario_id(in.scenario.kind)},
                  {"n", in.scenario.n},
                  {"heads", in.scenario.heads},
                  {"dim", in.scenario.dim},
                  {"temperature", in.scenario.temperature},
                  {"seed", in.scenario.seed},
                  {"text", in.text},
                  {"model_dir", in.model_dir},
                  {"layer", in.layer},
                  {"truncate", in.truncate},
                  {"tensors_path", in.tensors_path},
                  {"max_matrix_n", app.input.max_matrix_n},
                  {"view_size", app.input.view_size}};
    if (const std::string& name = scenario_info(in.scenario.kind).param.name; !name.empty() && in.scenario.structure != 0)
        j["input"][name] = in.scenario.structure;  // the scenario's own parameter under its own name (absent: default)
    nlohmann::json vars = nlohmann::json::array();
    for (const auto& s : app.variants.slots) {
        nlohmann::json p = nlohmann::json::object();
        for (const auto& [k, v] : s.params.numbers()) p[k] = v;
        for (const auto& [k, v] : s.params.lists()) p[k] = v;
        vars.push_back({{"id", s.id}, {"params", p}});
    }
    j["variants"] = vars;
    const MatrixViewState& v = app.view;
    j["view"] = {{"head", v.head}, {"mask", v.show_mask}, {"diff", v.show_diff}, {"log", v.log_scale},
                 {"decades", v.decades}, {"spectrum", app.spectrum.enabled}, {"export_dir", app.exports.dir},
                 {"lsh_preview", app.lsh.preview}, {"shared_scale", v.shared_scale},
                 {"grid_index", app.spectrum.grid_index},
                 {"order", v.order == DisplayOrder::LshBuckets ? "lsh" : v.order == DisplayOrder::Groups ? "clusters" : "positions"},
                 {"order_round", v.order_round},
                 {"zoom", {v.x_min, v.x_max, v.y_min, v.y_max}}};
    j["performance"] = {{"n_min_log2", app.perf.n_min_log2}, {"n_max_log2", app.perf.n_max_log2},
                        {"heads", app.perf.heads}, {"dim", app.perf.dim}, {"runs", app.perf.runs},
                        {"budget_s", app.perf.budget_s}, {"references", app.perf.references}};
    lessons_to_json(app, j);
    if (ImGui::GetCurrentContext()) {
        size_t size = 0;
        const char* ini = ImGui::SaveIniSettingsToMemory(&size);
        j["layout"] = std::string(ini, size);
    }
    return j.dump(2);
}

void session_from_json(App& app, const std::string& text) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        throw Error(std::string("the session file is not valid JSON (") + e.what() + "): fix or delete it");
    }
    try {
        if (j.value("version", 0) != kSessionVersion)
            throw Error("session version " + std::to_string(j.value("version", 0)) + " is not " +
                        std::to_string(kSessionVersion) + ": delete the file to start fresh");
        InputState input;
        input.reset();
        if (j.contains("input")) {
            const auto& in = j["input"];
            const std::string mode = in.value("mode", "synthetic");
            if (mode != "synthetic" && mode != "text" && mode != "tensors")
                throw Error("input mode '" + mode + "' is not synthetic, text or tensors: fix the session file");
            input.spec.mode = mode == "text" ? InputMode::Text : mode == "tensors" ? InputMode::Tensors : InputMode::Synthetic;
            input.spec.scenario.kind = parse_scenario(in.value("scenario", "local"));
            input.spec.scenario.n = in.value("n", 256);
            input.spec.scenario.heads = in.value("heads", 4);
            input.spec.scenario.dim = in.value("dim", 64);
            input.spec.scenario.temperature = in.value("temperature", 1.0);
            input.spec.scenario.seed = in.value("seed", uint64_t(0));
            const std::string& structure = scenario_info(input.spec.scenario.kind).param.name;
            input.spec.scenario.structure = structure.empty() ? 0 : in.value(structure, 0);
            input.spec.text = in.value("text", input.spec.text);
            input.spec.model_dir = in.value("model_dir", "");
            input.spec.layer = in.value("layer", 0);
            input.spec.truncate = in.value("truncate", false);
            input.spec.tensors_path = in.value("tensors_path", "");
            input.tensors_edit = input.spec.tensors_path;
            input.max_matrix_n = in.value("max_matrix_n", 4096);
            input.view_size = in.value("view_size", 1024);
        }
        VariantsState vars;
        if (j.contains("variants")) {
            for (const auto& v : j["variants"]) {
                const std::string id = v.at("id").get<std::string>();
                const Variant* variant = nullptr;
                for (const auto& candidate : all_variants())
                    if (candidate->info().id == id) variant = candidate.get();
                if (!variant) continue;  // a variant from a build that had more: skip it, keep the rest
                vars.add(id);
                Params p = vars.slots.back().params;  // defaults, then the saved values on top
                const nlohmann::json params = v.value("params", nlohmann::json::object());
                for (auto it = params.begin(); it != params.end(); ++it) {
                    const std::string& k = it.key();
                    const nlohmann::json& val = it.value();
                    const ParamSpec* spec = find_param(variant->info().params, k);
                    if (!spec) continue;
                    if (val.is_array()) p.set_list(k, val.get<std::vector<int>>());
                    else {
                        validate_param(id, *spec, val.get<double>());
                        p.set(k, val.get<double>());
                    }
                }
                vars.slots.back().params = p;
            }
        } else {
            vars.reset();
        }
        MatrixViewState view;
        if (j.contains("view")) {
            const auto& v = j["view"];
            view.head = v.value("head", 0);
            view.show_mask = v.value("mask", true);
            view.show_diff = v.value("diff", false);
            view.log_scale = v.value("log", true);
            view.decades = v.value("decades", 4.0f);
            view.shared_scale = v.value("shared_scale", true);
            const std::string order = v.value("order", "positions");
            if (order != "positions" && order != "lsh" && order != "clusters")
                throw Error("view.order '" + order + "' is not positions, lsh or clusters: fix the session file");
            view.order = order == "lsh" ? DisplayOrder::LshBuckets : order == "clusters" ? DisplayOrder::Groups
                                                                                      : DisplayOrder::Positions;
            view.order_round = v.value("order_round", 0);
            app.spectrum.enabled = v.value("spectrum", true);
            app.spectrum.grid_index = v.value("grid_index", 0);
            app.lsh.preview = v.value("lsh_preview", false);
            if (v.contains("zoom") && v["zoom"].size() == 4) {  // keys x_min, x_max; queries y_min, y_max
                view.x_min = v["zoom"][0], view.x_max = v["zoom"][1], view.y_min = v["zoom"][2], view.y_max = v["zoom"][3];
                view.fit_next = false;
                view.fitted_n = input.spec.mode == InputMode::Synthetic ? input.spec.scenario.n : 0;
            }
            app.exports.dir = v.value("export_dir", app.exports.dir);
        }
        app.input = input;
        app.variants = vars;
        app.view = view;
        app.pending_layout = j.value("layout", "");
        if (j.contains("performance")) {  // sweep range; "run": true starts a sweep on load (screenshots)
            const auto& p = j["performance"];
            app.perf.n_min_log2 = p.value("n_min_log2", app.perf.n_min_log2);
            app.perf.n_max_log2 = p.value("n_max_log2", app.perf.n_max_log2);
            app.perf.heads = p.value("heads", app.perf.heads);
            app.perf.dim = p.value("dim", app.perf.dim);
            app.perf.runs = p.value("runs", app.perf.runs);
            app.perf.budget_s = p.value("budget_s", app.perf.budget_s);
            app.perf.references = p.value("references", app.perf.references);
            app.perf.run_on_start = p.value("run", false);
        }
        lessons_from_json(app, j);
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error(std::string("the session file has an unexpected shape (") + e.what() + "): fix or delete it");
    }
}

}  // namespace attnscope::gui
