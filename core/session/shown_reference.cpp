#include "core/session/shown_reference.h"

#include <algorithm>

#include "core/variants/registry.h"

namespace attnscope {

bool shown_reference_causal(const std::vector<bool>& instances_causal) {
    return !instances_causal.empty() &&
           std::all_of(instances_causal.begin(), instances_causal.end(), [](bool causal) { return causal; });
}

bool shown_reference_causal(const std::vector<VariantRequest>& instances) {
    std::vector<bool> causal;
    for (const VariantRequest& r : instances) causal.push_back(runs_causal(find_variant(r.id).info(), r.params));
    return shown_reference_causal(causal);
}

bool shown_reference_causal(const std::vector<RunResult>& results) {
    std::vector<bool> causal;
    for (const RunResult& r : results) causal.push_back(r.causal);
    return shown_reference_causal(causal);
}

}  // namespace attnscope
