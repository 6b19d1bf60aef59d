// attnscope — `lsh`: Reformer's LSH attention (Kitaev et al. 2020), exactly as docs/VARIANTS.md defines it.
//
// Plan (host, deterministic given the seed): one random rotation R_r (d × n_b/2, N(0,1) entries from
// core/backend/shared/random.h) per round, shared by the heads. Run (Backend primitives): keys = L2-normalised
// queries under shared QK; hash h(x) = argmax([xR; −xR]); sort by bucket·n + position; chunks of c sorted
// slots attend to themselves and look_back previous chunks (wrapping); the self-mask (score −1e5) applies under
// shared QK only, where q_i·k̂_i would otherwise dominate (Kitaev §3) — with separate Q and K there is no such
// reason, which also makes n_b = 1, c ≥ n, shared_qk off exactly `full`. Pairs met in several rounds are
// discounted by log(count) and rounds are combined by log-sum-exp, so P̃ is the softmax over the union of
// the rounds' sets (the self cell only carries weight when nothing else is possible).
//
// With shared_qk off, queries and keys are hashed and sorted separately (LshBuckets::bucket_k, perm_k); chunk t of the sorted queries attends to chunks t…t−look_back of the sorted keys.
//
// [SECTION] card and resolve   [SECTION] structure on the host   [SECTION] run
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "core/backend/interface/backend.h"
#include "core/backend/interface/lsh_rules.h"
#include "core/backend/shared/random.h"
#include "core/variants/common_params.h"
#include "core/variants/lsh.h"
#include "core/variants/registry.h"

namespace attnscope {

namespace {

constexpr uint64_t kRotationStream = 0x4C534800;  // "LSH": stream of round r is kRotationStream + r

// [SECTION] card and resolve

/// n/c rounded to even, ≥ 2: buckets about as large as a chunk, the paper's relation (n_b = n/c).
int auto_buckets(int n, int chunk) {
    int nb = static_cast<int>(std::lround(double(n) / chunk));
    if (nb % 2) ++nb;
    return std::max(2, nb);
}

/// What hashing decided while running, in (R, H, n) layout, with the settings it used.
struct LshHashing {
    int H = 0, n = 0, R = 0, nb = 0, c = 0, L = 0;
    bool shared = true, causal = false, self_mask = true;
    float scale = 1.0f;
    Tensor3 rotations;              // (R, d, n_b/2)
    std::vector<int> buckets_q, perm_q, buckets_k, perm_k;  // (R, H, n); *_k empty when shared
    const std::vector<int>& pk() const { return shared ? perm_q : perm_k; }
};

// [SECTION] structure on the host

/// Inverse permutation per (round, head): slot of each position.
std::vector<int> slots_of(const std::vector<int>& perm, int R, int H, int n) {
    std::vector<int> slot(perm.size());
    for (int64_t rh = 0; rh < int64_t(R) * H; ++rh)
        for (int s = 0; s < n; ++s) slot[rh * n + perm[rh * n + s]] = s;
    return slot;
}

/// Walks, for query i of head h, every key of the union of the rounds' sets once (causal applied),
/// calling visit(j, first_round). Self is reported like any other key; callers apply the self-mask.
template <class Visit>
void for_each_union_key(const LshHashing& p, const std::vector<int>& slot_q, const std::vector<int>& slot_k, int h, int i,
                        Visit&& visit) {
    const int n = p.n, nc = lsh_num_chunks(n, p.c), attended = lsh_chunks_attended(p.L, nc);
    const std::vector<int>& pk = p.pk();
    for (int r = 0; r < p.R; ++r) {
        const int64_t base = (int64_t(r) * p.H + h) * n;
        const int t = slot_q[base + i] / p.c;
        for (int b = 0; b < attended; ++b) {
            const int kc = lsh_key_chunk(t, b, nc);
            for (int s = kc * p.c; s < std::min(n, kc * p.c + p.c); ++s) {
                const int j = pk[base + s];
                if (p.causal && j > i) continue;
                bool seen = false;
                for (int r2 = 0; r2 < r && !seen; ++r2) {
                    const int64_t b2 = (int64_t(r2) * p.H + h) * n;
                    seen = lsh_chunk_attends(slot_q[b2 + i] / p.c, slot_k[b2 + j] / p.c, p.L, nc);
                }
                if (!seen) visit(j, r);
            }
        }
    }
}

/// allowed_lse (H, n, 1), allowed cells and empty rows of the union of the rounds' sets (self-mask rule as in
/// for_each_union_key's callers), by chunk GEMMs on Q and the keys LSH scores (the normalised queries under shared QK:
/// the mass is a share of LSH's own exact model) at the exact scale in double: round by round,
/// every (chunk, look-back) block is scored at once and each pair counts in the first round that holds it. Rows
/// of one round are disjoint across chunks, so the tasks of a round update their rows without sharing.
struct UnionStats {
    Tensor3 allowed;
    double cells = 0;
    int64_t empty_rows = 0;
};

UnionStats union_stats(const LshHashing& p, const Heads& in, const Tensor3& keys_in, const std::vector<int>& slot_q,
                       const std::vector<int>& slot_k) {
    const int H = p.H, n = p.n, d = in.d(), nc = lsh_num_chunks(n, p.c), attended = lsh_chunks_attended(p.L, nc);
    const double exact_scale = 1.0 / std::sqrt(double(d));
    using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    std::vector<double> run_max(size_t(H) * n, -INFINITY), run_sum(size_t(H) * n, 0.0);
    std::vector<int64_t> count(size_t(H) * n, 0);
    std::vector<uint8_t> self_seen(size_t(H) * n, 0);
    for (int r = 0; r < p.R; ++r) {
#pragma omp parallel for collapse(2) schedule(dynamic)
        for (int h = 0; h < H; ++h)
            for (int t = 0; t < nc; ++t) {
                const int64_t base = (int64_t(r) * H + h) * n;
                const int* pq = p.perm_q.data() + base;
                const int* pk = p.pk().data() + base;
                const int q0 = t * p.c, rows = std::min(p.c, n - q0);
                std::vector<int> keys;
                for (int b = 0; b < attended; ++b) {
                    const int kc = lsh_key_chunk(t, b, nc);
                    for (int sl = kc * p.c; sl < std::min(n, kc * p.c + p.c); ++sl) keys.push_back(pk[sl]);
                }
                const int cols = static_cast<int>(keys.size());
                MatD q(rows, d), k(cols, d);
                for (int i = 0; i < rows; ++i) q.row(i) = in.Q.head(h).row(pq[q0 + i]).cast<double>();
                for (int j = 0; j < cols; ++j) k.row(j) = keys_in.head(h).row(keys[j]).cast<double>();
                MatD logits(rows, cols);
                logits.noalias() = exact_scale * q * k.transpose();
                // Chunks of every key in the earlier rounds, for the "already counted" test.
                std::vector<int> earlier(size_t(r) * cols);
                for (int r2 = 0; r2 < r; ++r2)
                    for (int j = 0; j < cols; ++j) earlier[size_t(r2) * cols + j] = slot_k[(int64_t(r2) * H + h) * n + keys[j]] / p.c;
                std::vector<uint8_t> take(cols);
                Eigen::ArrayXd ex(cols);
                int cq[kMaxLshRounds];
                for (int i = 0; i < rows; ++i) {
                    const int qi = pq[q0 + i];
                    const size_t row = size_t(h) * n + qi;
                    for (int r2 = 0; r2 < r; ++r2) cq[r2] = slot_q[(int64_t(r2) * H + h) * n + qi] / p.c;
                    double m = -INFINITY;
                    int64_t taken = 0;
                    for (int j = 0; j < cols; ++j) {
                        const int kj = keys[j];
                        bool ok = !(p.causal && kj > qi);
                        for (int r2 = 0; r2 < r && ok; ++r2) ok = !lsh_chunk_attends(cq[r2], earlier[size_t(r2) * cols + j], p.L, nc);
                        if (ok && p.self_mask && kj == qi) self_seen[row] = 1, ok = false;
                        take[j] = ok;
                        if (ok) m = std::max(m, logits(i, j)), ++taken;
                    }
                    if (m == -INFINITY) continue;
                    ex = (logits.row(i).transpose().array() - m).exp();  // SIMD; summed over the taken cells only
                    double sum = 0;
                    for (int j = 0; j < cols; ++j) sum += take[j] ? ex[j] : 0.0;
                    const double m_all = std::max(m, run_max[row]);
                    run_sum[row] = run_sum[row] * std::exp(run_max[row] - m_all) + sum * std::exp(m - m_all);
                    run_max[row] = m_all;
                    count[row] += taken;
                }
            }
    }
    UnionStats u;
    u.allowed = Tensor3(H, n, 1);
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) {
            const size_t row = size_t(h) * n + i;
            if (count[row] == 0 && self_seen[row]) {  // the self cell is all there is
                run_max[row] = exact_scale * in.Q.head(h).row(i).cast<double>().dot(keys_in.head(h).row(i).cast<double>());
                run_sum[row] = 1.0, count[row] = 1;
            }
            u.cells += double(count[row]);
            u.empty_rows += count[row] == 0 ? 1 : 0;
            u.allowed.at(h, i, 0) = count[row] == 0 ? -INFINITY : static_cast<float>(run_max[row] + std::log(run_sum[row]));
        }
    return u;
}

/// Density and allowed_lse (exact scale 1/√d on Q and `keys`, the keys LSH scores): the union of the rounds' sets,
/// as costly as the attention itself.
void analyse_union(const LshHashing& p, const Heads& in, const Tensor3& keys, Structure& s) {
    const int H = p.H, n = p.n;
    const std::vector<int> slot_q = slots_of(p.perm_q, p.R, H, n);
    const std::vector<int> slot_k = p.shared ? slot_q : slots_of(p.perm_k, p.R, H, n);
    UnionStats u = union_stats(p, in, keys, slot_q, slot_k);
    const double total_cells = p.causal ? 0.5 * n * (n + 1.0) : double(n) * n;
    s.density = u.cells / (H * total_cells);
    s.allowed_lse = std::move(u.allowed);
    s.rows_without_keys = u.empty_rows;  // explained here: note_rows_without_keys adds no second note
    if (u.empty_rows > 0)
        s.notes.push_back(std::to_string(u.empty_rows) + " of " + std::to_string(int64_t(H) * n) +
                          " rows have no allowed key (causal with separate Q/K hashing: every key in "
                          "their chunks comes later); their output is 0");
}

/// The Bucket mask and P̃ = Σ_r (round r's softmax weights)·exp(L_r − logsumexp L) scattered back to positions.
void explain_matrix(const LshHashing& p, const Heads& in, const Tensor3& keys, const Tensor3& lse_rounds,
                    std::optional<Tensor3>& P_eff, Structure& s) {
    const int H = p.H, n = p.n;
    const std::vector<int> slot_q = slots_of(p.perm_q, p.R, H, n);
    const std::vector<int> slot_k = p.shared ? slot_q : slots_of(p.perm_k, p.R, H, n);
    const int nc = lsh_num_chunks(n, p.c);
    ReasonMask mask;
    mask.heads = H, mask.n = n, mask.cells.assign(size_t(H) * n * n, 0);
    P_eff = Tensor3(H, n, n);
    // Chunk of every position per (round, head), and the scaled dot products of a block of rows with every key by
    // one GEMM: the per-cell divisions and dot products were most of this display-only pass (an edit in the GUI's
    // text box waits on it). A block of rows at a time, not all n² at once: at n = 16384 that was 1 GiB more to
    // allocate and fault in on every run.
    std::vector<int> chunk_q(slot_q.size()), chunk_k(slot_k.size());
    for (size_t k = 0; k < slot_q.size(); ++k) chunk_q[k] = slot_q[k] / p.c;
    for (size_t k = 0; k < slot_k.size(); ++k) chunk_k[k] = slot_k[k] / p.c;
    constexpr int kRowBlock = 64;
    for (int h = 0; h < H; ++h) {
#pragma omp parallel for schedule(dynamic, 1)
        for (int i0 = 0; i0 < n; i0 += kRowBlock) {
            const int rows = std::min(kRowBlock, n - i0);
            const MatrixRM dots = p.scale * in.Q.head(h).middleRows(i0, rows) * keys.head(h).transpose();
            for (int i = i0; i < i0 + rows; ++i) {
                std::vector<int> members;
                bool self_member = false;
                for_each_union_key(p, slot_q, slot_k, h, i, [&](int j, int) {
                    if (p.self_mask && j == i)
                        self_member = true;
                    else
                        members.push_back(j);
                });
                if (members.empty() && self_member) members.push_back(i);  // the self cell is all there is
                for (int j : members) mask.cells[(size_t(h) * n + i) * n + j] = static_cast<uint8_t>(Reason::Bucket);
                // Each round's softmax weights (normalised locally, from score differences) times the round's weight.
                const LshRoundsNorm norm = lsh_rounds_norm(lse_rounds.data() + int64_t(h) * n + i, p.R, int64_t(H) * n);
                std::vector<std::pair<int, float>> scores;
                for (int rr = 0; rr < p.R; ++rr) {
                    const int64_t base = (int64_t(rr) * H + h) * n;
                    const float weight = lsh_round_weight(lse_rounds.at(rr, h * n + i, 0), norm);
                    if (weight == 0.0f) continue;
                    const int t = slot_q[base + i] / p.c;
                    scores.clear();
                    float row_max = -INFINITY;
                    for (int b = 0; b < lsh_chunks_attended(p.L, nc); ++b) {
                        const int kc = lsh_key_chunk(t, b, nc);
                        for (int s = kc * p.c; s < std::min(n, kc * p.c + p.c); ++s) {
                            const int j = p.pk()[base + s];
                            if (p.causal && j > i) continue;
                            int count = 0;
                            for (int r2 = 0; r2 < p.R; ++r2) {
                                const int64_t b2 = (int64_t(r2) * H + h) * n;
                                count += lsh_chunk_attends(chunk_q[b2 + i], chunk_k[b2 + j], p.L, nc) ? 1 : 0;
                            }
                            scores.push_back({j, lsh_cell_score(dots(i - i0, j), p.self_mask && j == i,
                                                                lsh_duplicate_discount(count))});
                            row_max = std::max(row_max, scores.back().second);
                        }
                    }
                    float sum = 0.0f;
                    for (auto& [j, sc] : scores) sum += (sc = std::exp(sc - row_max));
                    for (const auto& [j, e] : scores) P_eff->at(h, i, j) += e / sum * weight;
                }
            }
        }
    }
    s.mask = std::move(mask);
}

/// Per-round (H·n) slices of an (R, H, n) index array.
std::vector<std::vector<int>> split_rounds(const std::vector<int>& v, int R, int64_t per_round) {
    std::vector<std::vector<int>> out;
    for (int r = 0; r < R; ++r) out.emplace_back(v.begin() + r * per_round, v.begin() + (r + 1) * per_round);
    return out;
}

// [SECTION] run

}  // namespace

Tensor3 lsh_rotations(const Params& params, int d) {
    const int R = params.get_int("rounds"), nb = params.get_int("buckets");
    const uint64_t seed = static_cast<uint64_t>(params.get("seed"));
    if (nb == 1) return Tensor3(R, d, 0);
    Tensor3 rot(R, d, nb / 2);
    for (int r = 0; r < R; ++r)
        for (int64_t k = 0; k < int64_t(d) * (nb / 2); ++k)
            rot.head_data(r)[k] = static_cast<float>(rng::normal(seed, kRotationStream + r, k));
    return rot;
}

namespace {

/// Hashing (n·d·n_b/2 multiply-adds per round, twice without shared QK) and the chunked attention: every query
/// scores the (1 + look-back) chunks it attends, at most n keys, per round.
double lsh_flops(int H, int n, int d, int dv, int rounds, int buckets, int chunk, int look_back, bool shared) {
    const int nc = lsh_num_chunks(n, chunk), attended = lsh_chunks_attended(look_back, nc);
    const double cells_per_round = double(n) * std::min(n, attended * chunk);
    return H * rounds * (2.0 * n * d * (buckets / 2) * (shared ? 1 : 2) + 2.0 * cells_per_round * (d + dv));
}

}  // namespace

namespace {

/// The rotations of one run: seeded, or given (peers' draws).
struct LshPlan : Plan {
    Tensor3 rotations;  // (R, d, n_b/2)
};

/// A run keeps its hashing, the keys it scored and each round's L: analyse() and explain() read them.
struct LshExecution : Execution {
    LshHashing hashing;
    Tensor3 normalised;  // the L2-normalised queries (shared QK's keys); empty otherwise
    Tensor3 lse_rounds;  // (R, H·n, 1)
    const Tensor3& keys(const Heads& in) const { return hashing.shared ? normalised : in.K; }
};

std::unique_ptr<Execution> lsh_execute(const LshPlan& plan, const Heads& in, Backend& backend) {
    const Params& params = plan.params;
    auto e = std::make_unique<LshExecution>();
    LshHashing& p = e->hashing;
    p.H = in.heads(), p.n = in.n(), p.R = params.get_int("rounds"), p.nb = params.get_int("buckets");
    p.c = params.get_int("chunk"), p.L = params.get_int("look_back");
    p.shared = params.get_bool("shared_qk"), p.causal = params.get_bool("causal"), p.self_mask = p.shared;
    p.scale = static_cast<float>(1.0 / std::sqrt(double(in.d())));
    if (p.nb > 1) require_shape(plan.rotations, p.R, in.d(), p.nb / 2, "lsh rotations");
    p.rotations = plan.rotations;
    const int d = in.d(), dv = in.dv(), H = p.H, n = p.n;

    if (p.shared) {
        e->normalised = in.Q;
        for (int h = 0; h < H; ++h) {
            MatView k = e->normalised.head(h);
            for (int i = 0; i < n; ++i) {
                const float norm = k.row(i).norm();
                if (norm > 0) k.row(i) /= norm;
            }
        }
    }
    LshHashArgs hash;
    hash.X = &in.Q, hash.rotations = &p.rotations, hash.rounds = p.R, hash.n_buckets = p.nb;
    hash.buckets = &p.buckets_q, hash.perm = &p.perm_q;
    backend.lsh_hash(hash);
    if (!p.shared) {
        hash.X = &in.K, hash.buckets = &p.buckets_k, hash.perm = &p.perm_k;
        backend.lsh_hash(hash);
    }
    {
        // The rounds are combined inside the call (the O_r stay where they were computed, on a device too).
        e->lse_rounds = Tensor3(p.R, H * n, 1);
        e->O = Tensor3(H, n, dv);
        LshAttentionArgs att;
        att.Q = &in.Q, att.K = &e->keys(in), att.V = &in.V, att.perm_q = &p.perm_q, att.perm_k = &p.pk();
        att.rounds = p.R, att.chunk_len = p.c, att.look_back = p.L, att.scale = p.scale;
        att.causal = p.causal, att.self_mask = p.self_mask, att.lse_rounds = &e->lse_rounds, att.O = &e->O;
        backend.lsh_attention(att);
    }
    e->flops = lsh_flops(H, n, d, dv, p.R, p.nb, p.c, p.L, p.shared);
    e->bytes = 4.0 * H * n * (2.0 * d + 2.0 * dv) + 4.0 * p.R * H * n * (2.0 * dv + 2.0) + 8.0 * p.R * H * n;

    Structure& s = e->structure;
    LshBuckets lsh;
    lsh.rounds = p.R, lsh.buckets = p.nb, lsh.chunk_len = p.c;
    lsh.bucket_q = split_rounds(p.buckets_q, p.R, int64_t(H) * n);
    lsh.perm_q = split_rounds(p.perm_q, p.R, int64_t(H) * n);
    if (!p.shared) {
        lsh.bucket_k = split_rounds(p.buckets_k, p.R, int64_t(H) * n);
        lsh.perm_k = split_rounds(p.perm_k, p.R, int64_t(H) * n);
    }
    lsh.rotations = p.rotations;
    s.lsh = std::move(lsh);
    const int nc = lsh_num_chunks(n, p.c);
    if (n % p.c != 0 && nc > 1)
        s.notes.push_back("n = " + std::to_string(n) + " is not a multiple of c = " + std::to_string(p.c) +
                          ": the sorted order is padded to " + std::to_string(nc * p.c) +
                          " slots; the padding is masked (the last chunk holds " + std::to_string(n % p.c) + ")");
    if (p.shared)
        s.notes.push_back("shared QK: keys are the L2-normalised queries (K unused); a token attends to itself "
                          "only when nothing else is allowed (score −1e5)");
    if (p.nb == 1) s.notes.push_back("n_b = 1: one bucket, the rotation is unused and every round is the same");
    return e;
}

class LshVariant : public Variant {
public:
    LshVariant() {
        m_info = {
            .id = "lsh",
            .name = "Reformer LSH attention",
            .paper = "Kitaev et al. 2020",
            .summary = "hash shared Q/K with random rotations (argmax [xR; −xR]), sort by bucket, attend within chunk + "
                  "look-back, self-mask, log-sum-exp over rounds",
            .params = {int_param("rounds", "n_r",
                                 "hash rounds n_r (n_rounds in the paper, n_hashes in its code), combined by log-sum-exp",
                                 4, 1, kMaxLshRounds),
                   with_auto_default(int_param("buckets", "n_b", "buckets n_b per round (1 or even): h(x) = argmax([xR; −xR])",
                                               2, 1, 65536),
                                     "n/c rounded to even, ≥ 2"),
                   // 64 in the paper (n = 4096 and up); the default follows n below 512 so a short text is not one chunk.
                   with_auto_default(int_param("chunk", "c", "chunk length c of the sorted sequence", 64, 1, 65536),
                                     "n/8 rounded down to a power of two, within [4, 64]"),
                   int_param("look_back", "look-back", "previous chunks each chunk attends to (wrapping)", 1, 0, 16),
                   bool_param("shared_qk", "shared-QK", "keys = L2-normalised queries (K unused); self-mask on", true),
                   causal_param(false), seed_param()},
            .has_mask = true,
            .short_name = "LSH",
            .key_params = {"rounds"},
            .budget_param = "chunk"};
    }

    Params resolve(const Params& params, const Shape& heads) const override {
        Params p = params;
        if (!p.has("chunk")) p.set("chunk", std::clamp(power_of_two_floor(heads.n() / 8), 4, 64));
        if (!p.has("buckets")) p.set("buckets", auto_buckets(heads.n(), p.get_int("chunk")));
        const int nb = p.get_int("buckets");
        if (nb > 1 && nb % 2 != 0)
            throw Error("lsh: buckets n_b = " + std::to_string(nb) + " must be 1 or even (h(x) = argmax over [xR; −xR] "
                        "has n_b/2 rotations): choose " + std::to_string(nb + 1) + " or " + std::to_string(nb - 1));
        return p;
    }

    std::unique_ptr<Plan> plan(const Heads& in, const Params& params,
                               const std::shared_ptr<const VariantWeights>&) const override {
        auto plan = std::make_unique<LshPlan>();
        plan->params = params;
        plan->causal = params.get_bool("causal");
        plan->rotations = lsh_rotations(params, in.d());
        return plan;
    }
    std::unique_ptr<Execution> execute(const Plan& plan, const Heads& in, Backend& backend) const override {
        return lsh_execute(static_cast<const LshPlan&>(plan), in, backend);
    }
    void analyse(const Plan&, Execution& base, const Heads& in, Backend&) const override {
        auto& e = static_cast<LshExecution&>(base);
        analyse_union(e.hashing, in, e.keys(in), e.structure);
    }
    void explain(const Plan&, Execution& base, const Heads& in, int max_matrix_n, Backend&) const override {
        auto& e = static_cast<LshExecution&>(base);
        if (in.n() <= max_matrix_n) explain_matrix(e.hashing, in, e.keys(in), e.lse_rounds, e.P_eff, e.structure);
    }
    int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params& p) const override {
        // Every buffer of lsh_run() summed, as if all phases overlapped (an upper bound): the normalised shared
        // keys, R rounds of outputs and log-sum-exps, O, the rotations, the hash/sort/slot index arrays, the
        // chunk attention's per-thread scratch and the union statistics (doubles, per thread and per row).
        const int64_t R = p.get_int("rounds"), c = std::min(p.get_int("chunk"), n), H = heads, Hn = H * n;
        const int nc = lsh_num_chunks(n, static_cast<int>(std::max<int64_t>(1, c)));
        const int64_t width = lsh_chunks_attended(p.get_int("look_back"), nc) * c, threads = omp_get_max_threads();
        const bool shared = p.get_bool("shared_qk");
        const int64_t floats = (shared ? Hn * d : 0) + R * Hn * (dv + 1) + Hn * (dv + 1) +
                               R * d * std::max(1, p.get_int("buckets") / 2) +
                               threads * (c * d + width * d + width * dv + c * width + c * dv);
        const int64_t ints = R * Hn * (shared ? 4 : 8) + threads * (R + 3) * width;
        const int64_t doubles = Hn * 3 + threads * (c * d + width * d + c * width + width);
        return 4 * floats + 4 * ints + 8 * doubles + Hn;
    }
    /// Shared QK changes the model: keys are the normalised queries and a token skips itself.
    ExactModel exact_model(const Params& p) const override {
        return p.get_bool("shared_qk") ? ExactModel::SharedQkSelfMasked : ExactModel::Softmax;
    }
    double estimate_flops(int heads, int n, int d, int dv, const Params& p) const override {
        return lsh_flops(heads, n, d, dv, p.get_int("rounds"), p.get_int("buckets"), p.get_int("chunk"),
                         p.get_int("look_back"), p.get_bool("shared_qk"));
    }
};

}  // namespace

void add_lsh_variants(std::vector<std::unique_ptr<Variant>>& out) { out.push_back(std::make_unique<LshVariant>()); }

RunResult lsh_run(const Heads& in, const Params& params, const Tensor3& rotations, const RunOptions& options,
                  Backend& backend) {
    static const LshVariant variant;
    LshPlan plan;
    plan.params = params;
    plan.causal = params.get_bool("causal");
    plan.rotations = rotations;
    return variant.run_plan(plan, in, options, backend);
}

}  // namespace attnscope
