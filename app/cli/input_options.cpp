#include "input_options.h"

#include <cstdio>
#include <cstring>
#include <fstream>

#include "core/data/scenarios.h"

namespace attnscope::cli {

void add_input_options(CLI::App& sub, InputOptions& o) {
    std::string scenarios;
    for (const ScenarioInfo& s : scenario_list()) scenarios += "\n  " + s.id + ": " + s.description;
    sub.add_option("--data", o.data, "Synthetic scenario:" + scenarios)->capture_default_str();
    sub.add_option("--n", o.n, "Sequence length n")->capture_default_str();
    sub.add_option("--heads", o.heads, "Number of heads H")->capture_default_str();
    sub.add_option("--dim", o.dim, "Head dimension d of Q and K")->capture_default_str();
    sub.add_option("--value-dim", o.value_dim, "Value dimension dv (0: same as d)")->capture_default_str();
    sub.add_option("--temperature", o.temperature, "Temperature T: logits are divided by T (small T: peaked rows)")
        ->capture_default_str();
    sub.add_option("--seed", o.seed, "Seed of the scenario (same seed, same tensors)")->capture_default_str();
}

Heads load_input(const InputOptions& o) {
    ScenarioSpec spec;
    spec.kind = parse_scenario(o.data);
    spec.n = o.n;
    spec.heads = o.heads;
    spec.dim = o.dim;
    spec.value_dim = o.value_dim;
    spec.temperature = o.temperature;
    spec.seed = o.seed;
    return make_scenario(spec);
}

std::pair<std::string, std::string> split_assignment(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw Error("--set '" + text + "' is not NAME=VALUE (e.g. --set window=128 or --set longformer.window=128)");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

void require_writable(const std::string& path) {
    const std::string probe = path + ".tmp-attnscope";
    std::ofstream out(probe);
    if (!out) throw Error("cannot write '" + path + "': " + std::strerror(errno) + "; choose a writable path");
    out.close();
    std::remove(probe.c_str());
}

}  // namespace attnscope::cli
