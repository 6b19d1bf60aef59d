// attnscope — `sink` (Xiao et al. 2023, StreamingLLM): causal attention to the first s positions (the attention
// sinks) and to the w most recent keys.
//   Sink:   j < s (and j ≤ i)
//   Window: i − w < j ≤ i
// Causal by construction (it models streaming generation): no causal parameter. Exact when w ≥ n.
// Composed (mask_compose.h) as (sinks ∪ recent keys) ∩ causal. Layout block b = choose_layout_block(w) (16..64);
// window blocks strictly inside the band are stored dense.
#include <algorithm>

#include "core/variants/common_params.h"
#include "core/variants/modifiers.h"
#include "core/variants/pattern_variant.h"

namespace attnscope {

namespace {

/// The sinks j < s and the recent keys 0 ≤ i − j < w, causal: a sink wins where both hold.
using SinkPattern = Restricted<AnyOf<KeyRange, Band>, Causal>;

SinkPattern sink_pattern(int n, int b, int window, int sinks) {
    return restricted(any_of(KeyRange{n, b, 0, sinks - 1, Reason::Sink}, Band{n, b, 0, int64_t(window) - 1, Reason::Window}),
                      Causal{n, b, true}, n, b);
}

class SinkVariant : public PatternVariant<SinkPattern> {
public:
    SinkVariant() {
        m_info = {
            .id = "sink",
            .name = "StreamingLLM (attention sinks)",
            .paper = "Xiao et al. 2023",
            .summary = "causal: the first s positions (sinks) and the w most recent keys i − w < j ≤ i; masked softmax",
            // The paper keeps a cache of a few thousand recent tokens; the default follows n below 256 so a short
            // text shows the window and the sinks apart.
            .params = with_modifier_params({window_param("recent keys w: query i attends i − w < j ≤ i (w ≥ n: every earlier key)",
                                                         "min(64, n/4, ≥ 1)"),
                       int_param("sinks", "s", "sink positions s: every query also attends j < s (the first tokens "
                                 "collect attention the window would drop)", 4, 0, 65536),
                       scale_param()}, true),
            .has_mask = true,
            .always_causal = true,
            .short_name = "Sink",
            .key_params = {"window", "sinks"},
            .signed_matrix = false,
            .budget_param = "window"};
    }
    Params resolve(const Params& params, const Shape& heads) const override {
        Params p = Variant::resolve(params, heads);
        if (!p.has("window")) p.set("window", std::clamp(heads.n() / 4, 1, 64));
        return p;
    }
    std::unique_ptr<Plan> plan(const Heads& x, const Params& p,
                               const std::shared_ptr<const VariantWeights>&) const override {
        auto [pat, s] = pattern(x.n(), x.heads(), p);
        const int window = p.get_int("window"), sinks = p.get_int("sinks");
        if (window >= x.n())
            s.notes.push_back("window w = " + std::to_string(window) + " ≥ n = " + std::to_string(x.n()) +
                              ": every earlier key is recent (equals causal full attention)");
        if (sinks > x.n())
            s.notes.push_back("sinks s = " + std::to_string(sinks) + " > n = " + std::to_string(x.n()) +
                              ": every position is a sink");
        return make_sparse_plan(p, x, std::move(pat), std::move(s));
    }

protected:
    std::pair<SinkPattern, SparseSetup> pattern(int n, int, const Params& p) const override {
        const int window = p.get_int("window"), b = choose_layout_block(std::max(1, window));
        return {sink_pattern(n, b, window, p.get_int("sinks")), layout_setup(p, b, true, 1)};
    }
};

}  // namespace

std::unique_ptr<Variant> make_sink_variant() { return std::make_unique<SinkVariant>(); }

}  // namespace attnscope
