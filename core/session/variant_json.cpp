// attnscope — variant instances in JSON (see variant_json.h).
#include "core/session/variant_json.h"

#include "core/variants/registry.h"

namespace attnscope {

nlohmann::json variant_to_json(const VariantRequest& request) {
    const VariantInfo& info = find_variant(request.id).info();
    nlohmann::json params = nlohmann::json::object();
    for (const ParamSpec& spec : info.params) {
        if (!request.params.has(spec.name)) continue;
        switch (spec.kind) {
            case ParamKind::Bool: params[spec.name] = request.params.get_bool(spec.name); break;
            case ParamKind::Choice:
            case ParamKind::IntList: params[spec.name] = request.params.value_text(spec); break;
            default: params[spec.name] = request.params.get(spec.name); break;
        }
    }
    return {{"id", request.id}, {"params", params}};
}

namespace {

/// A scalar JSON value as the text typed after --set: strings as they are, switches 1/0, numbers as JSON writes them.
std::string scalar_text(const nlohmann::json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_boolean()) return value.get<bool>() ? "1" : "0";
    return value.dump();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> assignments_of(const VariantRequest& request, const std::string& except) {
    std::vector<std::pair<std::string, std::string>> out;
    const nlohmann::json params = variant_to_json(request)["params"];
    for (auto it = params.begin(); it != params.end(); ++it)
        if (it.key() != except) out.emplace_back(it.key(), scalar_text(it.value()));
    return out;
}

std::vector<VariantRequest> variants_from_json(const nlohmann::json& list, const std::string& where, bool skip_unknown) {
    std::vector<VariantRequest> out;
    if (list.is_null()) return out;
    if (!list.is_array()) throw Error(where + ": \"variants\" is " + list.dump() + "; it must be a list of {\"id\", \"params\"}");
    int index = 0;
    for (const nlohmann::json& v : list) {
        ++index;
        const std::string entry = where + ": variant #" + std::to_string(index);
        if (!v.is_object() || !v.contains("id") || !v.at("id").is_string())
            throw Error(entry + " is " + v.dump() + "; it must be {\"id\": \"...\", \"params\": {...}}");
        const std::string id = v.at("id").get<std::string>();
        const bool known = [&] {
            for (const auto& candidate : all_variants())
                if (candidate->info().id == id) return true;
            return false;
        }();
        if (!known && skip_unknown) continue;
        const nlohmann::json params = v.contains("params") ? v.at("params") : nlohmann::json::object();
        if (!params.is_object()) throw Error(entry + " (" + id + "): \"params\" is " + params.dump() + "; it must be an object");
        // Every value as the text a user would type after --set, so one parser validates and names what is wrong.
        std::vector<std::pair<std::string, std::string>> assignments;
        for (auto it = params.begin(); it != params.end(); ++it) {
            const nlohmann::json& value = it.value();
            std::string text;
            if (value.is_array()) {
                for (const auto& x : value) {
                    if (!x.is_number_integer())
                        throw Error(entry + " (" + id + "): '" + it.key() + "' is " + value.dump() +
                                    "; a list holds whole numbers, e.g. \"0,5\"");
                    text += (text.empty() ? "" : ",") + x.dump();
                }
                if (text.empty()) text = "none";
            } else if (value.is_string() || value.is_boolean() || value.is_number()) {
                text = scalar_text(value);
            } else {
                throw Error(entry + " (" + id + "): '" + it.key() + "' is " + value.dump() +
                            "; it must be a number, true/false or a string as after --set");
            }
            assignments.emplace_back(it.key(), text);
        }
        try {
            out.push_back(parse_variant_request(id, assignments));
        } catch (const Error& e) {
            throw Error(entry + ": " + e.what());
        }
    }
    return out;
}

}  // namespace attnscope
