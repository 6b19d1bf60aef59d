// attnscope — `blocksel`: block selection as in MoBA (Lu et al. 2025) and the selected branch of NSA (Yuan et al.
// 2025). Keys come in blocks of b; each query i scores every key block J by MoBA's gate q_i·k̄_J (k̄_J the mean key
// of block J) and keeps its top n blocks, plus its own block (MoBA's gate makes it +∞) and block 0 (NSA always
// selects the initial block); attention is exact inside the kept blocks. gate=pooled scores with the mean query
// of the query's block instead (q̄_I·k̄_J, one choice per query block), a cheaper gate that is not MoBA's.
//   Local:    J = I (the own block; j ≤ i when causal)
//   Sink:     J = 0 (the first block, kept by every query)
//   Selected: one of the n best-scoring other blocks (J < I when causal; ties to the lower J)
// Composed (mask_compose.h) as (own block ∪ block 0 ∪ selected) ∩ causal. With a mask modifier a block holding no key the mask allows for query i is not a candidate (MoBA's varlen code
// selects inside a query's own sequence only). The gate costs O(n·(n/b)·d) beside O(n·d) pooling; it runs in the
// plan. Exact when the kept blocks cover every key block (n_top + 2 ≥ ⌈n/b⌉).
#include <algorithm>
#include <numeric>

#include <Eigen/Dense>

#include "core/variants/common_params.h"
#include "core/variants/modifiers.h"
#include "core/variants/sparse_common.h"

namespace attnscope {

namespace {

/// How a query scores the key blocks.
enum class BlockGate {
    Query = 0,   // q_i·k̄_J (MoBA)
    Pooled = 1,  // q̄_I·k̄_J, I = the query's block
};

/// The key blocks each query's gate chose (beyond its own block and block 0), coloured Selected.
struct SelectedBlocks {
    int n, b, top;            // top = selected blocks per query
    std::vector<int> chosen;  // (H, n, top) selected key blocks per query, ascending, −1 when fewer exist

    const int* row(int h, int i) const { return chosen.data() + (size_t(h) * n + i) * top; }
    bool selected(int h, int i, int J) const {
        const int* r = row(h, i);
        return std::find(r, r + top, J) != r + top;
    }
    Reason reason(int h, int i, int j) const { return top > 0 && selected(h, i, j / b) ? Reason::Selected : Reason::None; }
    /// Row i's chosen blocks inside [j0, j0 + ext), each kept whole (HasRowBits).
    int64_t row_bits(int h, int i, int j0, int ext, uint64_t* words) const {
        int64_t count = 0;
        for (const int* r = row(h, i); r < row(h, i) + top && *r >= 0; ++r) {
            const int c0 = std::max(*r * b, j0) - j0, c1 = std::min(std::min((*r + 1) * b, n), j0 + ext) - j0;
            if (c0 < c1) set_bit_range(words, c0, c1), count += c1 - c0;
        }
        return count;
    }
    /// Queries of one block may choose different blocks: each chosen block is examined row by row.
    void candidates(int h, int I, std::vector<BlockCandidate>& out) const {
        if (top == 0) return;
        std::vector<char> seen(size_t(block_count(n, b)), 0);
        for (int i = I * b; i < std::min(n, (I + 1) * b); ++i)
            for (const int* r = row(h, i); r < row(h, i) + top && *r >= 0; ++r)
                if (!seen[size_t(*r)]) seen[size_t(*r)] = 1, out.push_back({*r, false});
    }
};

/// The own block (Local), then block 0 (Sink), then the chosen blocks; causal cuts all three.
using BlockSelPattern = Restricted<AnyOf<LocalBlocks, KeyRange, SelectedBlocks>, Causal>;

/// For every head and query, the `top` key blocks (J ∉ {0, own}; J < own when causal; holding a key the mask keeps)
/// with the largest gate, ascending; ties go to the lower J.
std::vector<int> choose_blocks(const Heads& x, int b, int top, bool causal, BlockGate gate_kind, const MaskMod& mask) {
    const int H = x.heads(), n = x.n(), nb = (n + b - 1) / b;
    std::vector<int> chosen(size_t(H) * n * std::max(top, 1), -1);
    if (top == 0) return chosen;
#pragma omp parallel for schedule(static)
    for (int h = 0; h < H; ++h) {
        Eigen::MatrixXf kbar(nb, x.d()), query(n, x.d());
        for (int J = 0; J < nb; ++J) kbar.row(J) = x.K.head(h).middleRows(J * b, std::min(b, n - J * b)).colwise().mean();
        if (gate_kind == BlockGate::Query) {
            query = x.Q.head(h);
        } else {
            for (int I = 0; I < nb; ++I) {
                const int i0 = I * b, rows = std::min(b, n - i0);
                query.middleRows(i0, rows).rowwise() = x.Q.head(h).middleRows(i0, rows).colwise().mean();
            }
        }
        const Eigen::MatrixXf gate = query * kbar.transpose();  // (n, nb)
        std::vector<int> order;
        for (int i = 0; i < n; ++i) {
            const int I = i / b;
            order.clear();
            for (int J = 1; J < (causal ? I : nb); ++J)
                if (J != I && mask.allows_any(i, J * b, std::min(n, (J + 1) * b) - 1)) order.push_back(J);
            const std::vector<int> kept = top_indices(std::move(order), top, [&](int J) { return gate(i, J); });
            std::copy(kept.begin(), kept.end(), chosen.begin() + long((size_t(h) * n + i) * top));
        }
    }
    return chosen;
}

class BlockSelVariant : public SparseVariant {
public:
    BlockSelVariant() {
        m_info = {
            .id = "blocksel",
            .name = "Block selection (MoBA / NSA)",
            .paper = "Lu et al. 2025; Yuan et al. 2025",
            .summary = "key blocks of b; each query keeps its top n blocks by MoBA's gate q·k̄ (k̄ = the block's mean key), "
                       "its own block and block 0; exact attention inside the kept blocks",
            // 64 in the papers (n in the thousands); the default follows n below 1024 so a short text has blocks to choose.
            .params = with_modifier_params({with_auto_default(int_param("block", "b", "block size b of keys (and of the query blocks)", 64, 1, 4096),
                                         "n/16 rounded down to a power of two, within [4, 64]"),
                       int_param("top_blocks", "n", "selected key blocks per query, beyond its own block and block 0",
                                 4, 0, 65536),
                       choice_param("gate", "gate", "how a query scores key block J: query = q_i·k̄_J (MoBA's gate, every "
                                    "query chooses), pooled = q̄_I·k̄_J with the mean query of its block (one choice per "
                                    "query block; cheaper, not MoBA's)", {"query", "pooled"}, int(BlockGate::Query)),
                       causal_param(true, "; only earlier blocks are selected"), scale_param()}, true),
            .has_mask = true,
            .short_name = "Block selection",
            .key_params = {"block", "top_blocks"},
            .signed_matrix = false,
            .budget_param = "top_blocks"};
    }
    Params resolve(const Params& params, const Shape& heads) const override {
        Params p = Variant::resolve(params, heads);
        if (!p.has("block")) p.set("block", std::clamp(power_of_two_floor(heads.n() / 16), 4, 64));
        return p;
    }
    std::unique_ptr<Plan> plan(const Heads& x, const Params& p,
                               const std::shared_ptr<const VariantWeights>&) const override {
        const int n = x.n(), b = p.get_int("block"), nb = block_count(n, b), top = p.get_int("top_blocks");
        const bool causal = p.get_bool("causal");
        const auto gate = static_cast<BlockGate>(p.get_int("gate"));
        BlockSelPattern pat = restricted(any_of(LocalBlocks{n, b, b}, KeyRange{n, b, 0, b - 1, Reason::Sink},
                                                SelectedBlocks{n, b, top, choose_blocks(x, b, top, causal, gate,
                                                                                        modifiers_of(p, x).mask)}),
                                         Causal{n, b, causal}, n, b);
        SparseSetup s;
        s.block = b;
        s.causal = causal;
        s.scale = static_cast<float>(p.get("scale"));
        s.layout_heads = x.heads();
        s.notes.push_back(gate == BlockGate::Query
                              ? "gate: every query scored the " + std::to_string(nb) + " key blocks by MoBA's q·k̄ in "
                                "the plan (O(n·(n/b)·d), untimed)"
                              : "gate: pooled — every query block scored the " + std::to_string(nb) + " key blocks by "
                                "its mean query, q̄·k̄, in the plan (untimed); MoBA's gate is gate=query");
        if (top + 2 >= nb) s.notes.push_back("n + 2 ≥ ⌈n/b⌉ = " + std::to_string(nb) + ": every block is kept (equals full)");
        return make_sparse_plan(p, x, std::move(pat), std::move(s));
    }
    bool flops_estimate_is_bound(const Params& p) const override {
        return !p.get_bool("causal") || SparseVariant::flops_estimate_is_bound(p);
    }
    /// The attention over the kept blocks (own, block 0 and n selected per query), as execute() reports it;
    /// exact when causal (selected blocks are earlier, so whole), an upper bound otherwise (a selected last block
    /// may be partial, and which blocks are selected depends on Q, K).
    double estimate_flops(int heads, int n, int d, int dv, const Params& p) const override {
        const int b = p.get_int("block"), nb = (n + b - 1) / b, top = p.get_int("top_blocks");
        const bool causal = p.get_bool("causal");
        double cells = 0;
        for (int I = 0; I < nb; ++I) {
            const double rows = std::min(b, n - I * b);
            const int available = causal ? std::max(0, I - 1) : nb - 1 - (I != 0 ? 1 : 0);  // J ∉ {0, I}
            const int others = std::min(top, available);
            cells += rows * (causal ? (rows + 1) / 2 : rows);                   // own block
            if (I != 0) cells += rows * std::min(b, n);                         // block 0
            cells += rows * b * others;                                         // selected (full blocks; a
        }                                                                       // partial last block is an upper bound)
        return heads * cells * 2.0 * (d + dv);
    }
    /// O and L, the per-query choices and gate, and the layout: the b queries of a block row may choose up to b·n
    /// different blocks between them.
    int64_t estimate_peak_bytes(int heads, int n, int, int dv, const Params& p) const override {
        const int64_t b = p.get_int("block"), nb = (n + b - 1) / b, top = p.get_int("top_blocks");
        const int64_t kept = std::min<int64_t>(nb, b * top + 2);
        return int64_t(heads) * n * (dv + 3 + top) * 4 + int64_t(n) * nb * 4 * 2 + int64_t(heads) * nb * kept * (8 + 8 * b) +
               (16ll << 20);
    }
};

}  // namespace

std::unique_ptr<Variant> make_blocksel_variant() { return std::make_unique<BlockSelVariant>(); }

}  // namespace attnscope
