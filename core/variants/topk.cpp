// attnscope — `topk`, the oracle of the masked family: each query keeps the k keys with the largest exact scores
// s·q_i·k_j (ties go to the lower j), causal or not — the best k-sparse pattern for this input, as `svd` is the
// best rank-r matrix. With modifiers it stays the oracle of the modified model: it ranks the modified logits and
// chooses only among the keys the mask modifier keeps (a row keeps fewer than k when fewer are allowed). It needs every exact score, so it is O(n²·d) by nature: an upper bound for what a sparse
// pattern with k keys per query can keep, not a method. The selection runs in plan() (host, untimed); execute()
// runs the block-sparse primitive over the kept cells. Exact when k ≥ n.
#include <algorithm>
#include <numeric>

#include <Eigen/Dense>

#include "core/variants/common_params.h"
#include "core/variants/modifiers.h"
#include "core/variants/sparse_common.h"

namespace attnscope {

namespace {

/// The pattern: per head and query, the kept keys in ascending order.
struct TopKPattern {
    int n, b, k;                  // k = the number kept per row (≤ n)
    std::vector<int> keys;        // (H, n, k) ascending per row; a causal row i < k − 1 keeps i + 1 (rest −1)

    const int* row(int h, int i) const { return keys.data() + (size_t(h) * n + i) * k; }
    Reason reason(int h, int i, int j) const {
        const int* r = row(h, i);
        const int* end = std::find(r, r + k, -1);
        return std::binary_search(r, end, j) ? Reason::TopK : Reason::None;
    }
    void candidates(int h, int I, std::vector<BlockCandidate>& out) const {
        std::vector<int> blocks;
        const int i0 = I * b, i1 = std::min(n, i0 + b);
        for (int i = i0; i < i1; ++i)
            for (const int* r = row(h, i); r < row(h, i) + k && *r >= 0; ++r) blocks.push_back(*r / b);
        std::sort(blocks.begin(), blocks.end());
        blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
        for (int J : blocks) out.push_back({J, false});
    }
};

/// The k largest modified logits mod(s·q_i·k_j) per row among the keys the mask keeps (j ≤ i when causal), ties by
/// lower j, for every head.
std::vector<int> select_top_keys(const Heads& x, int k, float scale, bool causal, const Modifiers& mods) {
    const int H = x.heads(), n = x.n();
    std::vector<int> keys(size_t(H) * n * k, -1);
    constexpr int kRows = 64;  // query rows scored per GEMM
    const int tiles = (n + kRows - 1) / kRows;
#pragma omp parallel for collapse(2) schedule(dynamic)
    for (int h = 0; h < H; ++h)
        for (int t = 0; t < tiles; ++t) {
            const int i0 = t * kRows, rows = std::min(kRows, n - i0);
            const Eigen::MatrixXf S = scale * (x.Q.head(h).middleRows(i0, rows) * x.K.head(h).transpose());
            std::vector<int> order;
            for (int r = 0; r < rows; ++r) {
                const int i = i0 + r, limit = causal ? i + 1 : n;
                order.clear();
                for (int j = 0; j < limit; ++j)
                    if (mods.mask.allows(i, j)) order.push_back(j);
                const std::vector<int> kept = top_indices(std::move(order), k, [&](int j) {
                    return apply_score_mod(mods.score, h, i, j, S(r, j));
                });
                std::copy(kept.begin(), kept.end(), keys.begin() + long((size_t(h) * n + i) * k));
            }
        }
    return keys;
}

class TopKVariant : public SparseVariant {
public:
    TopKVariant() {
        m_info = {
            .id = "topk",
            .name = "Top-k oracle (best k-sparse)",
            .paper = "oracle",
            .summary = "each query keeps its k keys with the largest exact scores (ties: lower j); masked softmax; "
                       "O(n²·d) by nature — the best k-sparse pattern, the sparse counterpart of svd",
            .params = with_modifier_params({int_param("k", "k", "keys kept per query (k ≥ n: every key)", 32, 1, 1048576), causal_param(false),
                       scale_param()}, true),
            .has_mask = true,
            .short_name = "Top-k",
            .key_params = {"k"},
            .signed_matrix = false,
            .budget_param = "k"};
    }
    std::unique_ptr<Plan> plan(const Heads& x, const Params& p,
                               const std::shared_ptr<const VariantWeights>&) const override {
        TopKPattern pat;
        pat.n = x.n(), pat.k = std::min(p.get_int("k"), x.n()), pat.b = 16;
        SparseSetup s;
        s.block = pat.b;
        s.causal = p.get_bool("causal");
        s.scale = static_cast<float>(p.get("scale"));
        s.layout_heads = x.heads();
        const Modifiers mods = modifiers_of(p, x);
        pat.keys = select_top_keys(x, pat.k, s.scale, s.causal, mods);
        s.notes.push_back("an oracle: the k = " + std::to_string(pat.k) + " keys of each row were chosen from all n² exact "
                          "scores (O(n²·d), untimed); the time shown is the attention over the kept cells");
        if (mods.any())
            s.notes.push_back("chosen by the modified logits (" + mods.label() + ") among the keys the modifiers keep: the "
                              "oracle of the modified model");
        if (p.get_int("k") >= x.n()) s.notes.push_back("k ≥ n: every key is kept (equals full attention)");
        return make_sparse_plan(p, x, std::move(pat), std::move(s));
    }
    /// The attention over the kept cells, as execute() reports it (the O(n²·d) selection is the plan's, untimed).
    double estimate_flops(int heads, int n, int d, int dv, const Params& p) const override {
        const int64_t k = p.get_int("k");
        double cells = 0;
        for (int64_t i = 0; i < n; ++i) cells += double(std::min<int64_t>(k, p.get_bool("causal") ? i + 1 : n));
        return heads * cells * 2.0 * (d + dv);
    }
    /// The kept indices, O and L, the layout (at most one stored 16×16 block per kept cell, bit-masked) and the
    /// 64-row score tiles of the selection, with slack.
    int64_t estimate_peak_bytes(int heads, int n, int, int dv, const Params& p) const override {
        const int64_t k = std::min(p.get_int("k"), n), b = 16, nb = (n + b - 1) / b;
        const int64_t kept_blocks = std::min<int64_t>(int64_t(heads) * nb * nb, int64_t(heads) * n * k);
        return int64_t(heads) * n * (k + dv + 2) * 4 + kept_blocks * (8 + 8 * b) + int64_t(n) * 64 * 4 * 4 + (16ll << 20);
    }
};

}  // namespace

std::unique_ptr<Variant> make_topk_variant() { return std::make_unique<TopKVariant>(); }

}  // namespace attnscope
