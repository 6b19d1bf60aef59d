// attnscope — `longformer` (Beltagy et al. 2020): sliding window plus symmetric global tokens.
//   Window (δ = 1) / Dilated (δ > 1): j = i + δ_h·t for an integer t with |t| ≤ ⌊w/2⌋ — the same w keys spread
//     δ_h apart, so the reach grows to δ_h·⌊w/2⌋ on each side (the paper's receptive field grows with δ; the
//     cost stays w keys per query)
//   Global: i ∈ G or j ∈ G (global rows and columns are fully connected)
//   causal: every cell also needs j ≤ i
// With dilation_per_head, head h uses δ_h = (h + 1)·δ, the paper's "different dilation per head" idea: with δ = 1
// head 0 stays local while later heads see farther; otherwise δ_h = δ. Global positions must lie in 0..n−1 (an
// Error names the bad one).
// Composed (mask_compose.h) as (globals ∪ dilated window) ∩ causal. Layout block b = choose_layout_block(w/2) (16..64); window blocks strictly inside the band are stored dense.
#include <algorithm>
#include <cmath>
#include <utility>

#include "core/variants/common_params.h"
#include "core/variants/modifiers.h"
#include "core/variants/pattern_variant.h"

namespace attnscope {

namespace {

/// The sliding window of w keys δ_h apart: j = i + δ_h·t with |t| ≤ ⌊w/2⌋, coloured Window (δ_h = 1) or Dilated.
struct DilatedWindow {
    int n, b, half;  // half = ⌊w/2⌋: |i − j| ≤ w/2 ⇔ |i − j| ≤ ⌊w/2⌋ for integers
    int dilation;    // δ
    bool per_head;   // δ_h = (h + 1)·δ

    int delta(int h) const { return per_head ? (h + 1) * dilation : dilation; }
    Reason reason(int h, int i, int j) const {
        const int dist = i > j ? i - j : j - i;
        const int dh = delta(h);
        if (dh == 1) return dist <= half ? Reason::Window : Reason::None;  // no division: the layout asks per cell
        if (dist % dh == 0 && dist / dh <= half) return Reason::Dilated;
        return Reason::None;
    }
    void candidates(int h, int I, std::vector<BlockCandidate>& out) const {
        const size_t first = out.size();
        const int64_t reach = int64_t(delta(h)) * half;
        band_candidates(n, b, I, -reach, reach, out);
        if (delta(h) != 1)
            for (size_t k = first; k < out.size(); ++k) out[k].full = false;
    }
    /// Row i's keys i + δ_h·t inside [j0, j0 + ext) (HasRowBits).
    int64_t row_bits(int h, int i, int j0, int ext, uint64_t* words) const {
        const int64_t dh = delta(h);
        if (dh == 1) {
            const int c0 = int(std::max<int64_t>(int64_t(i) - half - j0, 0));
            const int c1 = int(std::min<int64_t>(int64_t(i) + half - j0 + 1, ext));
            if (c0 >= c1) return 0;
            set_bit_range(words, c0, c1);
            return c1 - c0;
        }
        int64_t count = 0;
        // t from the first key ≥ j0 to the last < j0 + ext, within |t| ≤ half.
        const int64_t t0 = std::max<int64_t>(-half, -((int64_t(i) - j0) / dh));
        for (int64_t t = t0; t <= half; ++t) {
            const int64_t c = int64_t(i) + dh * t - j0;
            if (c >= ext) break;
            if (c < 0) continue;
            words[c >> 6] |= 1ull << (c & 63), ++count;
        }
        return count;
    }
};

/// Global rows and columns first, then the window; causal cuts both.
using LongformerPattern = Restricted<AnyOf<Globals, DilatedWindow>, Causal>;

class LongformerVariant : public PatternVariant<LongformerPattern> {
public:
    LongformerVariant() {
        m_info = {
            .id = "longformer",
            .name = "Longformer",
            .paper = "Beltagy et al. 2020",
            .summary = "sliding window of w keys, δ apart (j = i + δ·t, |t| ≤ w/2) + symmetric global tokens; masked softmax",
            // The paper's w is a model choice (512 for n = 4096); the default stays sparse on a short text.
            .params = with_modifier_params({window_param("window w: each query attends w/2 keys on each side (w ≥ 2n: every cell)",
                                                         "min(64, n/4 rounded down to even, ≥ 2)"),
             int_param("dilation", "δ", "dilation δ: the window's keys sit δ apart (j = i + δ·t, |t| ≤ w/2), so the reach "
                       "grows to δ·w/2 each side at the same cost", 1, 1, 65536),
             bool_param("dilation_per_head", "δ_h", "dilation per head: head h uses δ_h = (h + 1)·δ (head 0 local, later "
                        "heads see farther)", false),
             list_param("global", "G", "global positions G: rows and columns fully connected (positions ≥ n are skipped with a note; none: no globals)", "0"),
             causal_param(false), scale_param()}, true),
            .has_mask = true,
            .short_name = "Longformer",
            .key_params = {"window"},
            .budget_param = "window"};
    }
    Params resolve(const Params& params, const Shape& heads) const override {
        Params p = Variant::resolve(params, heads);
        if (!p.has("window")) p.set("window", std::clamp(heads.n() / 4 / 2 * 2, 2, 64));
        // Positions past the end are kept in the parameters and skipped in this run (run() notes them): a list of
        // globals belongs to the model, and the same model meets shorter sequences in a sweep over n.
        for (int g : p.get_list("global"))
            if (g < 0)
                throw Error("longformer: global position " + std::to_string(g) +
                            " is negative: give positions 0, 1, … (those ≥ n are skipped), or global=none");
        return p;
    }
    std::unique_ptr<Plan> plan(const Heads& x, const Params& p,
                               const std::shared_ptr<const VariantWeights>&) const override {
        auto [pat, s] = pattern(x.n(), x.heads(), p);
        const int w = p.get_int("window");
        const auto& [globals, window] = pat.pattern.parts;
        if (int64_t(w) >= 2 * int64_t(x.n()))
            s.notes.push_back("window w = " + std::to_string(w) + " ≥ 2n = " + std::to_string(2 * x.n()) +
                              ": the window covers every cell" + (window.dilation > 1 || window.per_head ? " δ allows" : "") +
                              " (equals full when δ = 1)");
        if (window.per_head)
            s.notes.push_back("dilation per head: δ_h = (h + 1)·δ, so head 0 uses " + std::to_string(window.delta(0)) +
                              " (reach " + std::to_string(int64_t(window.delta(0)) * window.half) + ") and head " +
                              std::to_string(x.heads() - 1) + " uses " + std::to_string(window.delta(x.heads() - 1)) +
                              " (reach " + std::to_string(int64_t(window.delta(x.heads() - 1)) * window.half) + " each side)");
        else if (window.dilation > 1)
            s.notes.push_back("dilation δ = " + std::to_string(window.dilation) + ": the " + std::to_string(2 * window.half + 1) +
                              " window keys sit δ apart, reaching " + std::to_string(int64_t(window.dilation) * window.half) +
                              " positions each side");
        std::string beyond;
        for (int g : p.get_list("global"))
            if (g >= x.n()) beyond += (beyond.empty() ? "" : ", ") + std::to_string(g);
        if (!beyond.empty())
            s.notes.push_back("global positions " + beyond + " lie beyond this sequence (n = " + std::to_string(x.n()) +
                              ") and are not used");
        else if (globals.positions.size() < p.get_list("global").size())
            s.notes.push_back("repeated global positions counted once");
        return make_sparse_plan(p, x, std::move(pat), std::move(s));
    }

protected:
    std::pair<LongformerPattern, SparseSetup> pattern(int n, int H, const Params& p) const override {
        const int half = p.get_int("window") / 2, b = choose_layout_block(half);
        const bool per_head = p.get_bool("dilation_per_head"), causal = p.get_bool("causal");
        // Positions ≥ n are not in this sequence.
        LongformerPattern pat = restricted(any_of(Globals::of(n, b, p.get_list("global")),
                                                  DilatedWindow{n, b, half, p.get_int("dilation"), per_head}),
                                           Causal{n, b, causal}, n, b);
        SparseSetup s = layout_setup(p, b, causal, per_head && H > 1 ? H : 1);
        return {std::move(pat), std::move(s)};
    }
};

}  // namespace

std::unique_ptr<Variant> make_longformer_variant() { return std::make_unique<LongformerVariant>(); }

}  // namespace attnscope
