// attnscope — `compose`: a mask the user composes from the predicates of mask_atoms.h (docs/VARIANTS.md, `compose`).
// The terms that keep cells are joined by union, coloured in this order where several hold:
//   Global:   i ∈ G or j ∈ G (rows and columns)          Sink:    j < s
//   Window:   |i − j| < w                                 Local:   ⌊i/B⌋ = ⌊j/B⌋
//   Vertical: j ∈ V                                       Slash:   i − j ∈ S
// With none of them every cell is kept (Dense). The filters then cut the union: causal (j ≤ i) and the mask modifiers
// (document, prefix-LM; make_sparse_plan). On the command line the terms are written with '+', e.g.
// compose:window=64+sinks=4+document (variant_spec.h); compose:window=w+sinks=s+causal is StreamingLLM's pattern.
// Layout block b = choose_layout_block of the widest span among w and B (16..64).
#include <algorithm>
#include <string>

#include "core/variants/common_params.h"
#include "core/variants/modifiers.h"
#include "core/variants/pattern_variant.h"

namespace attnscope {

namespace {

using ComposedPattern = Restricted<AnyOf<Globals, KeyRange, Band, LocalBlocks, Lines, KeyRange>, Causal>;

/// True when the params name no term that keeps cells (then every cell is kept).
bool no_kept_terms(const Params& p) {
    return p.get_int("window") == 0 && p.get_int("sinks") == 0 && p.get_int("blocks") == 0 &&
           p.get_list("global").empty() && p.get_list("vertical").empty() && p.get_list("slash").empty();
}

class ComposeVariant : public PatternVariant<ComposedPattern> {
public:
    ComposeVariant() {
        m_info = {
            .id = "compose",
            .name = "Composed mask",
            .paper = "attention-gym style mask predicates",
            .summary = "your own mask: the union of window, sinks, local blocks, globals and lines, cut by causal, "
                       "document or prefix; masked softmax",
            .params = with_modifier_params(
                {int_param("window", "w", "window w: query i keeps the keys |i − j| < w (0: no window)", 0, 0, 2097152),
                 int_param("sinks", "s", "sinks s: every query keeps the keys j < s (0: none)", 0, 0, 2097152),
                 int_param("blocks", "B", "local blocks B: queries keep the keys of their own block of B positions, "
                           "⌊i/B⌋ = ⌊j/B⌋ (0: none)", 0, 0, 2097152),
                 list_param("global", "G", "global positions G: their rows and columns keep every cell (none: no globals)",
                            "none"),
                 list_param("vertical", "V", "vertical lines V: every query keeps the key columns j ∈ V (none: no lines)",
                            "none"),
                 list_param("slash", "S", "slash lines S: every query keeps the diagonals i − j ∈ S (none: no lines)",
                            "none"),
                 causal_param(false), scale_param()},
                true),
            .has_mask = true,
            .short_name = "Compose",
            // No key parameters: a label names the terms that differ from "off", e.g. "Compose w = 64, s = 4".
            .key_params = {},
            .signed_matrix = false,
            .budget_param = "window"};
    }
    std::unique_ptr<Plan> plan(const Heads& x, const Params& p,
                               const std::shared_ptr<const VariantWeights>&) const override {
        auto [pat, s] = pattern(x.n(), x.heads(), p);
        if (no_kept_terms(p))
            s.notes.push_back("no term keeps cells (window, sinks, blocks, global, vertical, slash): every cell is "
                              "kept, then cut by the filters");
        std::string beyond;
        for (const char* name : {"global", "vertical"})
            for (int v : p.get_list(name))
                if (v < 0 || v >= x.n()) beyond += (beyond.empty() ? "" : ", ") + std::string(name) + " " + std::to_string(v);
        if (!beyond.empty())
            s.notes.push_back(beyond + " lie outside this sequence (0 … " + std::to_string(x.n() - 1) + ") and are not used");
        return make_sparse_plan(p, x, std::move(pat), std::move(s));
    }

protected:
    std::pair<ComposedPattern, SparseSetup> pattern(int n, int, const Params& p) const override {
        const int w = p.get_int("window"), sinks = p.get_int("sinks"), B = p.get_int("blocks");
        const bool causal = p.get_bool("causal");
        const int b = choose_layout_block(std::max({1, w, B}));
        Lines lines = Lines::of(n, b, p.get_list("vertical"), p.get_list("slash"));
        // The last part keeps every cell when no other term is given: a composition of filters alone.
        const int every_last = no_kept_terms(p) ? n - 1 : -1;
        ComposedPattern pat = restricted(
            any_of(Globals::of(n, b, p.get_list("global")), KeyRange{n, b, 0, sinks - 1, Reason::Sink},
                   Band{n, b, -(int64_t(w) - 1), int64_t(w) - 1, Reason::Window}, LocalBlocks{n, b, B}, std::move(lines),
                   KeyRange{n, b, 0, every_last, Reason::Dense}),
            Causal{n, b, causal}, n, b);
        return {std::move(pat), layout_setup(p, b, causal, 1)};
    }
};

}  // namespace

std::unique_ptr<Variant> make_compose_variant() { return std::make_unique<ComposeVariant>(); }

}  // namespace attnscope
