// `attnscope variants [--json]`: every registered variant with its parameters.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "core/variants/registry.h"

namespace attnscope::cli {

namespace {

const char* kind_name(ParamKind k) {
    switch (k) {
        case ParamKind::Real: return "real";
        case ParamKind::Int: return "int";
        case ParamKind::Bool: return "bool";
        case ParamKind::Choice: return "choice";
        case ParamKind::IntList: return "int-list";
    }
    return "?";
}

nlohmann::json spec_json(const ParamSpec& s) {
    nlohmann::json j = {{"name", s.name}, {"symbol", s.symbol}, {"help", s.help}, {"kind", kind_name(s.kind)}};
    if (s.auto_default) j["default"] = "auto: " + s.auto_help;
    else if (s.kind == ParamKind::IntList) j["default"] = s.list_default;
    else if (s.kind == ParamKind::Choice) j["default"] = s.choices.at(static_cast<size_t>(s.def));
    else j["default"] = s.def;
    if (s.kind == ParamKind::Real || s.kind == ParamKind::Int) j["min"] = s.lo, j["max"] = s.hi;
    if (s.kind == ParamKind::Bool) j["min"] = 0, j["max"] = 1;
    if (s.kind == ParamKind::Choice) j["choices"] = s.choices;
    return j;
}

int list_variants(bool as_json) {
    if (as_json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& v : all_variants()) {
            const VariantInfo& i = v->info();
            nlohmann::json params = nlohmann::json::array();
            for (const ParamSpec& s : i.params) params.push_back(spec_json(s));
            out.push_back({{"id", i.id}, {"name", i.name}, {"paper", i.paper}, {"summary", i.summary},
                           {"has_mask", i.has_mask}, {"params", params}});
        }
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    for (const auto& v : all_variants()) {
        const VariantInfo& i = v->info();
        std::cout << i.id << " — " << i.name << " (" << i.paper << ")\n    " << i.summary << "\n";
        for (const ParamSpec& s : i.params) {
            const std::string def = s.auto_default ? "auto: " + s.auto_help : default_params(i.params).value_text(s);
            std::cout << "    " << std::left << std::setw(14) << s.name << " default " << std::setw(12) << def
                      << " range " << std::setw(24) << describe_range(s) << " " << s.help << "\n";
        }
    }
    return 0;
}

}  // namespace

void add_variants_command(CLI::App& app, CommandAction& action) {
    auto* sub = app.add_subcommand("variants", "List every variant with its parameters (name, default, range, help)");
    auto as_json = std::make_shared<bool>(false);
    sub->add_flag("--json", *as_json, "Print JSON instead of a table");
    sub->callback([&action, as_json] { action = [as_json] { return list_variants(*as_json); }; });
}

}  // namespace attnscope::cli
