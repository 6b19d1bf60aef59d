#include "core/session/session_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/data/text_input.h"
#include "core/json_fields.h"
#include "core/session/input_json.h"
#include "core/session/variant_json.h"
#include "core/variants/registry.h"

namespace attnscope {

InputSpec default_session_input() {
    InputSpec spec = input_json_defaults();
    spec.layer = 5;  // the top layer: its heads are the most skewed (lesson low-rank)
    std::error_code ec;
    const bool model_installed =
        std::filesystem::exists(std::filesystem::path(default_model_dir()) / "model.safetensors", ec);
    spec.mode = model_installed ? InputMode::Text : InputMode::Synthetic;  // without it the GUI says how to install it
    return spec;
}

std::vector<VariantRequest> default_session_variants() {
    // One exact, one sparse, one hashing variant: three different pictures of the same attention.
    std::vector<VariantRequest> requests;
    for (const char* id : {"full", "bigbird", "lsh"})
        for (const auto& v : all_variants())
            if (v->info().id == id) requests.push_back({id, default_params(v->info().params)});
    if (requests.empty())
        for (const auto& v : all_variants())
            if (requests.size() < 2) requests.push_back({v->info().id, default_params(v->info().params)});
    return requests;
}

nlohmann::json parse_session_text(const std::string& text) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        throw Error(std::string("the session file is not valid JSON (") + e.what() + "): fix or delete it");
    }
    if (!j.is_object()) throw Error("the session file is not a JSON object: fix or delete it");
    const int64_t version = json_integer(j, "version", 0, INT64_MIN, INT64_MAX, "the session file");
    if (version != kSessionVersion)
        throw Error("session version " + std::to_string(version) + " is not " + std::to_string(kSessionVersion) +
                    ": delete the file to start fresh");
    return j;
}

InputSpec session_input_from_json(const nlohmann::json& session) {
    if (!session.contains("input")) return default_session_input();
    return input_spec_from_json(session.at("input"), "the session's input");
}

void session_input_to_json(const InputSpec& input, nlohmann::json& session) {
    session["input"] = input_spec_to_json(input);
}

std::vector<VariantRequest> session_variants_from_json(const nlohmann::json& session) {
    if (!session.contains("variants")) return default_session_variants();
    return variants_from_json(session.at("variants"), "the session file", true);  // a newer build's ids are left out
}

void session_variants_to_json(const std::vector<VariantRequest>& variants, nlohmann::json& session) {
    nlohmann::json list = nlohmann::json::array();
    for (const VariantRequest& r : variants) list.push_back(variant_to_json(r));
    session["variants"] = list;
}

SessionView session_view_from_json(const nlohmann::json& session, const std::string& where) {
    SessionView view;
    if (!session.contains("view")) return view;
    const nlohmann::json& v = session.at("view");
    view.head = json_int(v, "head", view.head, 0, 1 << 20, where);  // the views clamp it to the input's heads
    view.show_mask = json_bool(v, "mask", view.show_mask, where);
    view.show_diff = json_bool(v, "diff", view.show_diff, where);
    view.log_scale = json_bool(v, "log", view.log_scale, where);
    view.decades = float(json_number(v, "decades", view.decades, 0, 1000, where));
    view.order = parse_display_order(json_string(v, "order", display_order_name(view.order), where), where);
    view.order_round = json_int(v, "order_round", view.order_round, 0, 1 << 20, where);
    return view;
}

void session_view_to_json(const SessionView& view, nlohmann::json& session) {
    nlohmann::json& v = session["view"];
    v["head"] = view.head, v["mask"] = view.show_mask, v["diff"] = view.show_diff, v["log"] = view.log_scale;
    v["decades"] = view.decades;
    v["order"] = display_order_name(view.order), v["order_round"] = view.order_round;
}

std::string session_lesson_from_json(const nlohmann::json& session) {
    if (!session.contains("lesson")) return "";
    const nlohmann::json& l = session.at("lesson");
    const std::string id = json_string(l, "id", "", "the session's lesson");
    if (!l.is_object() || id.empty())
        throw Error("the session file: 'lesson' is " + l.dump() + "; it must be {\"id\": \"...\"} naming a lesson");
    return id;
}

bool session_means_lesson_setup(const nlohmann::json& session) {
    // A saved session holds the lesson's input and variants (perhaps edited); one written by hand may name only
    // the lesson.
    return !session_lesson_from_json(session).empty() && !session.contains("input") && !session.contains("variants");
}

SessionFile session_from_text(const std::string& text) {
    const nlohmann::json j = parse_session_text(text);
    try {
        if (session_means_lesson_setup(j)) return {{}, {}, {}, session_lesson_from_json(j)};
        return {session_input_from_json(j), session_variants_from_json(j), session_view_from_json(j), ""};
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error(std::string("the session file has an unexpected shape (") + e.what() + "): fix or delete it");
    }
}

SessionFile read_session_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read the session '" + path + "': check the path");
    std::stringstream text;
    text << in.rdbuf();
    return session_from_text(text.str());
}

}  // namespace attnscope
