// attnscope — what a benchmark is asked for: the configuration's checks, n lists, the input's bytes, a point's
// status and parameters as text (see engine.h).
#include <algorithm>
#include <set>
#include <sstream>

#include "core/bench/engine.h"
#include "core/variants/registry.h"

namespace attnscope {

namespace {

int parse_positive(const std::string& token, const std::string& whole) {
    size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(token, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != token.size() || token.empty() || v < 1 || v > (1ll << 30))
        throw Error("n list '" + whole + "': '" + token +
                    "' is not a length in [1, 2^30]; use a list (1024,4096), a power-of-two range (1024:65536) or both");
    return static_cast<int>(v);
}

}  // namespace

void validate_bench_config(const BenchConfig& c) {
    if (c.variants.empty()) throw Error("no variant to benchmark: pass --variants ID[,ID...] (see `attnscope variants`)");
    if (c.ns.empty()) throw Error("no sequence length to benchmark: pass --n (e.g. 1024:65536)");
    for (int n : c.ns)
        if (n < 1) throw Error("n = " + std::to_string(n) + " is not a sequence length: use n ≥ 1");
    if (!std::is_sorted(c.ns.begin(), c.ns.end()))
        throw Error("the n list must be ascending (the time budget skips larger n once a point is too slow)");
    if (c.heads < 1 || c.dim < 1 || c.value_dim < 0)
        throw Error("heads " + std::to_string(c.heads) + ", dim " + std::to_string(c.dim) + ", value dim " +
                    std::to_string(c.value_dim) + ": use heads ≥ 1, dim ≥ 1, value dim ≥ 0 (0 = dim)");
    if (c.plan.runs < 1 || c.plan.warmup < 0)
        throw Error("runs " + std::to_string(c.plan.runs) + ", warm-up " + std::to_string(c.plan.warmup) +
                    ": use at least 1 timed run (5 or more for a meaningful median) and warm-up ≥ 0");
    if (!(c.memory_safety_fraction >= 0 && c.memory_safety_fraction < 1))
        throw Error("memory safety fraction must be in [0, 1)");
    std::set<std::string> labels;
    for (const BenchVariantSpec& v : c.variants) {
        find_variant(v.id);  // throws with the registered ids
        const std::string label = v.label.empty() ? v.id : v.label;
        if (!labels.insert(label).second)
            throw Error("variant '" + label + "' is listed twice: give each sweep entry a distinct label");
    }
}

const char* point_status_name(PointStatus s) {
    switch (s) {
        case PointStatus::Measured: return "measured";
        case PointStatus::SkippedMemory: return "skipped-memory";
        case PointStatus::SkippedBudget: return "skipped-budget";
        case PointStatus::Failed: return "failed";
        case PointStatus::Cancelled: return "cancelled";
    }
    return "unknown";
}

std::vector<int> parse_n_list(const std::string& text) {
    std::vector<int> out;
    std::stringstream items(text);
    std::string item;
    while (std::getline(items, item, ',')) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (item.empty()) continue;
        const auto colon = item.find(':');
        if (colon == std::string::npos) {
            out.push_back(parse_positive(item, text));
            continue;
        }
        const int lo = parse_positive(item.substr(0, colon), text), hi = parse_positive(item.substr(colon + 1), text);
        if (lo > hi)
            throw Error("n range '" + item + "' runs backwards: write the smaller length first (e.g. 1024:65536)");
        for (long long n = lo; n <= hi; n *= 2) out.push_back(static_cast<int>(n));
    }
    if (out.empty())
        throw Error("n list '" + text + "' is empty: use a list (1024,4096), a power-of-two range (1024:65536) or both");
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

int64_t input_bytes_for(int heads, int n, int d, int dv) {
    // Q, K (H, n, d), V (H, n, dv) and the scenario's X = V of head 0, (1, n, dv).
    return int64_t(sizeof(float)) * n * (int64_t(heads) * (2ll * d + dv) + dv);
}

std::string params_summary(const std::string& variant_id, const Params& params) {
    std::string s;
    const VariantInfo& info = find_variant(variant_id).info();
    const Params defaults = default_params(info.params);
    for (const ParamSpec& spec : info.params) {
        if (spec.auto_default || !params.has(spec.name)) continue;
        if (defaults.has(spec.name) && spec.kind != ParamKind::IntList && defaults.get(spec.name) == params.get(spec.name))
            continue;
        if (spec.kind == ParamKind::IntList && defaults.has(spec.name) &&
            defaults.get_list(spec.name) == params.get_list(spec.name))
            continue;
        s += (s.empty() ? "" : " ") + spec.name + "=" + params.value_text(spec);
    }
    return s;
}

}  // namespace attnscope
