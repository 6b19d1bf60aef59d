#include "core/session/sinks_data.h"

#include "core/error.h"
#include "core/session/shown_reference.h"

namespace attnscope {

std::shared_ptr<const Tensor3> sinks_matrix(const RunSnapshot& snap, bool& causal, std::string& why_not) {
    if (!snap.heads) return why_not = "no input yet", nullptr;
    if (!snap.display_perm.empty()) return why_not = "the Matrices order is not positions: switch order to positions", nullptr;
    std::vector<bool> causalities;  // one per causality the instances run (the snapshot's exact Ps)
    for (const auto& [c, P] : snap.exact_P) causalities.push_back(c);
    causal = shown_reference_causal(causalities);
    const auto it = snap.exact_P.find(causal);
    if (it == snap.exact_P.end() || !it->second)
        return why_not = "no exact P at this n: raise 'materialise up to n' in the Input panel", nullptr;
    return it->second;
}

std::optional<KeyAttentionProfile> sinks_profile(const RunSnapshot& snap, std::string& why_not) {
    bool causal = false;
    const std::shared_ptr<const Tensor3> P = sinks_matrix(snap, causal, why_not);
    if (!P) return std::nullopt;
    return key_attention_profile(*P, snap.heads->tokens, causal, snap.heads->source);
}

KeyAttentionProfile sinks_profile(const Heads& heads, const std::vector<VariantRequest>& instances, ReferenceCache& refs,
                                  Backend& backend, int matrix_limit, const std::string& option) {
    if (heads.n() > matrix_limit)
        throw Error(option + " averages the exact P, which is not materialised at n = " + std::to_string(heads.n()) +
                    ": raise --matrix-limit to at least " + std::to_string(heads.n()));
    const bool causal = shown_reference_causal(instances);
    const Reference& ref = refs.get(causal, backend);
    if (!ref.P)
        throw Error(option + " needs the exact P, which is not materialised at n = " + std::to_string(heads.n()) +
                    ": raise --matrix-limit to at least " + std::to_string(heads.n()));
    return key_attention_profile(*ref.P, heads.tokens, causal, heads.source);
}

}  // namespace attnscope
