// attnscope — `xl` (Dai et al. 2019, Transformer-XL): segment-level recurrence seen from one attention layer.
// The sequence is cut in segments of L; query i in segment t = ⌊i/L⌋ attends
//   Segment: t·L ≤ j ≤ i          (causally inside its own segment)
//   Memory:  t·L − M ≤ j < t·L    (the last M positions before the segment: the cached states, no gradient;
//                                  M > L reaches into several previous segments)
// same_length (the paper code's option): every query attends exactly the M keys i − M < j ≤ i instead.
// Composed (mask_compose.h) as (segment ∪ memory) ∩ causal, and ∩ the M recent keys for same_length. Always
// causal. Layout block b = choose_layout_block(L) (16..64). The run also times the two evaluation modes
// (time_xl_evaluation).
#include "core/variants/xl.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <utility>

#include "core/format.h"
#include "core/variants/common_params.h"
#include "core/variants/modifiers.h"
#include "core/variants/pattern_variant.h"

namespace attnscope {

namespace {

/// The own segment (Segment) and the memory before it (Memory), causal; same_length cuts both to the M most recent
/// keys, the memory then reaching back to the sequence's start.
using XlPattern = Restricted<Restricted<AnyOf<LocalBlocks, SegmentMemory>, Causal>, RecentKeys>;

XlPattern xl_pattern(int n, int b, int L, int M, bool same_length) {
    const int64_t memory = same_length ? int64_t(n) : int64_t(M);
    return restricted(restricted(any_of(LocalBlocks{n, b, L, Reason::Segment}, SegmentMemory{n, b, L, memory}),
                                 Causal{n, b, true}, n, b),
                      RecentKeys{n, b, M, same_length}, n, b);
}

/// The cached mode of one segment: queries at window positions ≥ first attend causally to the whole window.
struct CachedSegmentPattern {
    int w, b, first;
    Reason reason(int, int i, int j) const {
        if (i < first || j > i) return Reason::None;
        return j >= first ? Reason::Segment : Reason::Memory;
    }
    void candidates(int, int I, std::vector<BlockCandidate>& out) const {
        const int64_t i1 = int64_t(I) * b + block_extent(w, b, I) - 1;
        if (i1 >= first) range_candidates(w, b, 0, i1, out);
    }
};

/// Rows [s0, e) of every head of t.
Tensor3 rows_of(const Tensor3& t, int s0, int e) {
    Tensor3 out(t.heads(), e - s0, t.cols());
    for (int h = 0; h < t.heads(); ++h) out.head(h) = t.head(h).middleRows(s0, e - s0);
    return out;
}

double elapsed_ms(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

class XlVariant : public PatternVariant<XlPattern> {
public:
    /// run() adds the evaluation-mode timings to the notes up to this n.
    static constexpr int kEvaluationNoteMaxN = 16384;
    XlVariant() {
        m_info = {
            .id = "xl",
            .name = "Transformer-XL",
            .paper = "Dai et al. 2019",
            .summary = "segments of L attend causally within themselves and to the last M cached positions; masked softmax "
            "(the recurrence only: the relative-position score terms are not modelled)",
            // The default follows n below 512 so a short input still has several segments and a memory to show.
            .params = with_modifier_params({with_auto_default(int_param("segment", "L", "segment length L", 128, 1, 1048576),
                                         "n/4 rounded down to a power of two, within [4, 128]"),
             with_auto_default(
                 int_param("memory", "M", "memory M: cached positions before the segment (no gradient)", 0, 0, 1048576),
                 "= L"),
             bool_param("same_length", "same_length",
                        "every query attends exactly the last M positions (i − M < j ≤ i)", false),
             scale_param()}, true),
            .has_mask = true,
            .always_causal = true,
            .short_name = "Transformer-XL",
            .key_params = {"segment", "memory"},
            .budget_param = "memory"};
    }
    Params resolve(const Params& params, const Shape& heads) const override {
        Params p = Variant::resolve(params, heads);
        if (!p.has("segment")) p.set("segment", std::clamp(power_of_two_floor(heads.n() / 4), 4, 128));
        if (!p.has("memory")) p.set("memory", p.get("segment"));
        if (p.get_bool("same_length") && p.get_int("memory") < 1)
            throw Error("xl: same_length with memory M = 0 leaves every query without keys: choose M ≥ 1");
        return p;
    }
    std::unique_ptr<Plan> plan(const Heads& x, const Params& p,
                               const std::shared_ptr<const VariantWeights>&) const override {
        auto [pat, s] = pattern(x.n(), x.heads(), p);
        const int L = p.get_int("segment"), M = p.get_int("memory");
        const int segments = (x.n() + L - 1) / L;
        s.notes.push_back(std::to_string(segments) + " segment(s) of L = " + std::to_string(L) +
                          ", memory M = " + std::to_string(M) +
                          (p.get_bool("same_length") ? ", same_length: every query sees exactly M keys" : ""));
        if (x.n() % L != 0 && L < x.n())
            s.notes.push_back("n = " + std::to_string(x.n()) + " padded to " + std::to_string(segments * L) +
                              " (segment L = " + std::to_string(L) + "): the last segment has " +
                              std::to_string(x.n() - (segments - 1) * L) + " real positions, padding masked");
        if (M >= x.n()) s.notes.push_back("memory M ≥ n: every j ≤ i is reachable (equals causal full)");
        s.notes.push_back("only the segment recurrence is shown: scores are s·q·k as in softmax attention, without "
                          "Transformer-XL's relative-position terms (which change the scores, not which keys are seen)");
        return make_sparse_plan(p, x, std::move(pat), std::move(s));
    }
    /// Beside allowed_lse, the evaluation modes timed against each other (cached memory vs recomputing the context):
    /// a measurement for the views, so neither benchmarks nor lesson timings pay for it.
    void analyse(const Plan& plan, Execution& e, const Heads& x, Backend& backend) const override {
        SparseVariant::analyse(plan, e, x, backend);
        if (x.n() > kEvaluationNoteMaxN) {
            e.structure.notes.push_back("evaluation modes not timed above n = " + std::to_string(kEvaluationNoteMaxN) +
                                        " (it replays every segment twice); time_xl_evaluation() times them on demand");
            return;
        }
        const Params& p = plan.params;
        const int L = p.get_int("segment"), M = p.get_int("memory");
        const XlEvaluationTiming t = time_xl_evaluation(x, L, M, static_cast<float>(p.get("scale")), backend);
        e.structure.notes.push_back(
            "evaluation over " + std::to_string(t.segments) + " segment(s): cached memory " +
            format_fixed(t.cached_ms, 2) + " ms vs recompute whole context " + format_fixed(t.recompute_ms, 2) +
            " ms (" + format_fixed(t.speedup, 2) + "× faster; analytic flops ratio " +
            format_fixed(t.recompute_flops / std::max(1.0, t.cached_flops), 2) + "; outputs agree to " +
            format_fixed(t.max_abs_diff * 1e6, 3) + "e-6)" + (p.get_bool("same_length") ? "; timed without same_length" : ""));
    }
    /// The pattern's bytes, plus one segment of the evaluation analyse() times (up to kEvaluationNoteMaxN).
    int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params& p) const override {
        int64_t bytes = PatternVariant::estimate_peak_bytes(heads, n, d, dv, p);
        if (n <= kEvaluationNoteMaxN) {  // its window of Q, K, V, two outputs, scratch
            const int w = static_cast<int>(std::min<int64_t>(n, int64_t(p.get_int("segment")) + p.get_int("memory")));
            const int64_t window_blocks = block_count(w, kDefaultLayoutBlock);
            bytes += int64_t(sizeof(float)) * heads * w * (2ll * d + 3ll * dv) +
                     block_sparse_scratch_bytes(kDefaultLayoutBlock, d, dv) +
                     tiled_attention_scratch_bytes(DenseAttentionArgs{}.tile_rows, DenseAttentionArgs{}.tile_cols, w, d,
                                                   dv) +
                     window_blocks * window_blocks *
                         (8 + 8 * kDefaultLayoutBlock * block_words_per_row(kDefaultLayoutBlock));
        }
        return bytes;
    }

protected:
    std::pair<XlPattern, SparseSetup> pattern(int n, int, const Params& p) const override {
        const int L = p.get_int("segment"), b = choose_layout_block(L);
        return {xl_pattern(n, b, L, p.get_int("memory"), p.get_bool("same_length")), layout_setup(p, b, true, 1)};
    }
};

}  // namespace

XlEvaluationTiming time_xl_evaluation(const Heads& x, int L, int M, float scale, Backend& backend) {
    if (L < 1 || M < 0)
        throw Error("xl evaluation: segment L = " + std::to_string(L) + " and memory M = " + std::to_string(M) +
                    ": choose L ≥ 1 and M ≥ 0");
    XlEvaluationTiming t;
    const int n = x.n(), H = x.heads(), dv = x.dv();
    const double per_cell = 2.0 * (x.d() + dv) * H;
    t.segments = (n + L - 1) / L;
    for (int seg = 0; seg < t.segments; ++seg) {
        const int start = seg * L, s0 = std::max(0, start - M), e = std::min(n, start + L), w = e - s0;
        const int first = start - s0;
        // Cache bookkeeping (the window's rows) is identical in both modes and not timed.
        const Tensor3 Q = rows_of(x.Q, s0, e), K = rows_of(x.K, s0, e), V = rows_of(x.V, s0, e);
        const BlockLayout layout =
            build_layout(CachedSegmentPattern{w, kDefaultLayoutBlock, first}, w, kDefaultLayoutBlock, 1);

        Tensor3 O_cached(H, w, dv), O_full(H, w, dv);
        BlockSparseAttentionArgs c;
        c.Q = &Q, c.K = &K, c.V = &V, c.layout = &layout, c.scale = scale, c.O = &O_cached;
        auto t0 = std::chrono::steady_clock::now();
        backend.block_sparse_attention(c);
        t.cached_ms += elapsed_ms(t0);

        DenseAttentionArgs d;
        d.Q = &Q, d.K = &K, d.V = &V, d.scale = scale, d.causal = true, d.O = &O_full;
        t0 = std::chrono::steady_clock::now();
        backend.dense_attention(d);
        t.recompute_ms += elapsed_ms(t0);

        for (int h = 0; h < H; ++h)
            t.max_abs_diff = std::max<double>(
                t.max_abs_diff,
                (O_cached.head(h).bottomRows(w - first) - O_full.head(h).bottomRows(w - first)).cwiseAbs().maxCoeff());
        const double q = w - first;  // queries of the segment, each sees first + its causal prefix
        t.cached_flops += per_cell * (q * first + 0.5 * q * (q + 1));
        t.recompute_flops += per_cell * 0.5 * double(w) * (w + 1);
    }
    t.speedup = t.cached_ms > 0 ? t.recompute_ms / t.cached_ms : 0.0;
    return t;
}

std::unique_ptr<Variant> make_xl_variant() { return std::make_unique<XlVariant>(); }

}  // namespace attnscope
