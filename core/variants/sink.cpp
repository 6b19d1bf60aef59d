// attnscope — `sink` (Xiao et al. 2023, StreamingLLM): causal attention to the first s positions (the attention
// sinks) and to the w most recent keys.
//   Sink:   j < s (and j ≤ i)
//   Window: i − w < j ≤ i
// Causal by construction (it models streaming generation): no causal parameter. Exact when w ≥ n.
// Layout block b = choose_layout_block(w) (16..64); window blocks strictly inside the band are stored dense.
#include <algorithm>

#include "core/variants/common_params.h"
#include "core/variants/modifiers.h"
#include "core/variants/pattern_variant.h"

namespace attnscope {

namespace {

struct SinkPattern {
    int n, b, window, sinks;

    Reason reason(int, int i, int j) const {
        if (j > i) return Reason::None;
        if (j < sinks) return Reason::Sink;
        return i - j < window ? Reason::Window : Reason::None;
    }
    void candidates(int, int I, std::vector<BlockCandidate>& out) const {
        if (window > 0) band_candidates(n, b, I, 0, window - 1, out);
        if (sinks > 0) range_candidates(n, b, 0, std::min(sinks, n) - 1, out);
    }
};

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
        if (pat.window >= x.n())
            s.notes.push_back("window w = " + std::to_string(pat.window) + " ≥ n = " + std::to_string(x.n()) +
                              ": every earlier key is recent (equals causal full attention)");
        if (pat.sinks > x.n())
            s.notes.push_back("sinks s = " + std::to_string(pat.sinks) + " > n = " + std::to_string(x.n()) +
                              ": every position is a sink");
        return make_sparse_plan(p, x, std::move(pat), std::move(s));
    }

protected:
    std::pair<SinkPattern, SparseSetup> pattern(int n, int, const Params& p) const override {
        SinkPattern pat;
        pat.n = n, pat.window = p.get_int("window"), pat.sinks = p.get_int("sinks");
        pat.b = choose_layout_block(std::max(1, pat.window));
        SparseSetup s = layout_setup(p, pat.b, true, 1);
        return {std::move(pat), std::move(s)};
    }
};

}  // namespace

std::unique_ptr<Variant> make_sink_variant() { return std::make_unique<SinkVariant>(); }

}  // namespace attnscope
