// attnscope — the low-rank family: `linformer` (Wang et al. 2020: project keys and values along the sequence,
// K' = E·K, V' = F·V) and `svd` (the oracle of Wang et al. §3: best rank-r approximation of the exact P).
// Linformer has no causal form: E and F mix every position, future ones included (the paper is
// bidirectional); the CLI rejects --causal for it because the card has no causal parameter.
//
// [SECTION] linformer   [SECTION] svd
#include <cmath>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>

#include "../analysis/svd.h"
#include "../backend/backend.h"
#include "../bench/cost_meter.h"
#include "../primitives/random.h"
#include "common_params.h"
#include "linformer.h"
#include "registry.h"

namespace attnscope {

// [SECTION] linformer

namespace {
constexpr uint64_t kLinformerStream = 0x4C494E45ull;  // "LINE": E uses this stream, F the next one
constexpr double kMaxQuadraticBytes = 8.0 * (1ull << 30);
}  // namespace

LinformerProjections linformer_projections(int heads, int n, int k, LinformerSharing sharing, uint64_t seed) {
    const int H = sharing == LinformerSharing::None ? heads : 1;
    const float sd = static_cast<float>(1.0 / std::sqrt(double(k)));
    auto fill = [&](uint64_t stream) {
        Tensor3 t(H, k, n);
        float* data = t.data();
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < t.size(); ++i) data[i] = sd * static_cast<float>(rng::normal(seed, stream, i));
        return t;
    };
    LinformerProjections p;
    p.E = fill(kLinformerStream);
    p.F = sharing == LinformerSharing::KeyValue ? p.E : fill(kLinformerStream + 1);
    return p;
}

double linformer_flops(int heads, int n, int d, int dv, int k) {
    return 2.0 * heads * k * n * (d + dv) + 2.0 * heads * n * k * (d + dv);
}

RunResult linformer_run(const Heads& h, const LinformerProjections& proj, float scale, const RunOptions& options,
                        Backend& backend) {
    const int H = h.heads(), n = h.n(), d = h.d(), dv = h.dv(), k = proj.E.rows();
    for (const Tensor3* m : {&proj.E, &proj.F})
        if ((m->heads() != H && m->heads() != 1) || m->rows() != k || m->cols() != n)
            throw Error("linformer: projection " + m->shape_string() + " must be (H or 1, k, n) with n = " +
                        std::to_string(n) + " and k = " + std::to_string(k));
    RunResult r;
    r.variant = "linformer";
    r.causal = false;
    DenseAttentionArgs a;
    Tensor3 Kp, Vp;
    {
        CostMeter meter(backend);
        Kp = Tensor3(H, k, d), Vp = Tensor3(H, k, dv);
        backend.gemm(proj.E, false, h.K, false, 1.0f, 0.0f, Kp);
        backend.gemm(proj.F, false, h.V, false, 1.0f, 0.0f, Vp);
        r.O = Tensor3(H, n, dv);
        a.Q = &h.Q, a.K = &Kp, a.V = &Vp, a.O = &r.O, a.scale = scale;
        backend.dense_attention(a);
        meter.stop(r.cost);
    }
    r.cost.flops = linformer_flops(H, n, d, dv, k);
    r.cost.bytes = 4.0 * H * (n * (2.0 * d + 2.0 * dv) + 2.0 * k * (d + dv)) + 4.0 * (proj.E.size() + proj.F.size());
    if (options.want_matrix) {
        // Copies for inspection only: a benchmark (want_matrix off) must not pay 2·k·n floats per head for them.
        r.structure.matrices["E"] = proj.E;
        r.structure.matrices["F"] = proj.F;
    }
    if (options.want_matrix && n <= options.max_matrix_n) {
        // Display only: P̄ (n×k) again with its probabilities, then P̃ = P̄·F.
        Tensor3 Pbar(H, n, k), O2(H, n, dv), Pt(H, n, n);
        a.O = &O2, a.P = &Pbar;
        backend.dense_attention(a);
        backend.gemm(Pbar, false, proj.F, false, 1.0f, 0.0f, Pt);
        r.P_eff = std::move(Pt);
    }
    return r;
}

namespace {

class LinformerVariant : public Variant {
public:
    LinformerVariant() {
        m_info = {"linformer", "Linformer", "Wang et al. 2020",
                  "K' = E·K, V' = F·V with E, F (k×n, N(0, 1/k)); O = softmax(s·QK'ᵀ)·V'; non-causal only",
                  {int_param("k", "k", "projected length k of E, F ∈ R^{k×n}", 64, 1, 65536),
                   choice_param("sharing", "sharing", "E_h, F_h per head (none), one E, F for all heads (headwise), "
                                "E = F for all heads (key-value)", {"none", "headwise", "key-value"}, 0),
                   seed_param()},
                  false, false, true};
    }
    const VariantInfo& info() const override { return m_info; }
    Params resolve(const Params& params, const Shape& heads) const override {
        const int k = params.get_int("k");
        if (k > heads.n())
            throw Error("linformer: k = " + std::to_string(k) + " > n = " + std::to_string(heads.n()) +
                        ": projecting to more rows than positions adds nothing; choose k ≤ n (e.g. --set k=" +
                        std::to_string(std::max(1, heads.n() / 4)) + ")");
        return params;
    }
    void prepare(const Heads& h, const Params& p) const override { (void)projections(h, p); }
    int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params& p) const override {
        // O, the projected K' (k, d) and V' (k, dv) per head, and the tiled attention's scratch over k keys; E and F
        // are weights (prepare()), and P̄ (n×k) is never held: the tiled primitive streams it.
        const int64_t k = p.get_int("k");
        const DenseAttentionArgs tiles;
        return int64_t(sizeof(float)) * heads * (int64_t(n) * dv + k * (d + dv)) +
               tiled_attention_scratch_bytes(tiles.tile_rows, tiles.tile_cols, int(k), d, dv);
    }
    double estimate_flops(int heads, int n, int d, int dv, const Params& p) const override {
        return linformer_flops(heads, n, d, dv, p.get_int("k"));
    }
    RunResult run(const Heads& h, const Params& p, const RunOptions& options, Backend& backend) const override {
        const auto proj = projections(h, p);
        RunResult r = linformer_run(h, *proj, static_cast<float>(1.0 / std::sqrt(double(h.d()))), options, backend);
        r.params = p;
        r.structure.notes.push_back("non-causal only: E and F mix all positions, future ones included");
        return r;
    }

private:
    /// E and F are the model's parameters (learned in the paper): made once per (H, n, k, sharing, seed) and
    /// reused, as a model reuses its weights, so repeated runs (benchmarks, GUI edits) time attention only.
    std::shared_ptr<const LinformerProjections> projections(const Heads& h, const Params& p) const {
        const int heads = h.heads(), n = h.n(), k = p.get_int("k");
        const auto sharing = static_cast<LinformerSharing>(p.get_int("sharing"));
        const auto seed = static_cast<uint64_t>(p.get("seed"));
        const std::tuple<int, int, int, int, uint64_t> key{heads, n, k, static_cast<int>(sharing), seed};
        std::lock_guard<std::mutex> lock(m_cache_mutex);
        if (!m_cached || m_cached_key != key) {
            m_cached.reset();  // release the old pair before making the new one
            m_cached = std::make_shared<const LinformerProjections>(linformer_projections(heads, n, k, sharing, seed));
            m_cached_key = key;
        }
        return m_cached;
    }
    mutable std::mutex m_cache_mutex;
    mutable std::shared_ptr<const LinformerProjections> m_cached;
    mutable std::tuple<int, int, int, int, uint64_t> m_cached_key{};
    VariantInfo m_info;
};

// [SECTION] svd

/// Exact P, its SVD (O(n³) by LAPACK up to kExactSvdLimit, else the randomized sketch's passes), P_r and P_r·V.
double svd_flops(int heads, int n, int d, int dv, int rank) {
    const double cells = double(n) * n;
    const bool exact = n <= kExactSvdLimit;
    return heads * (2.0 * cells * (d + dv) + 2.0 * cells * rank + (exact ? 4.0 * cells * n : 4.0 * cells * (rank + 10) * 8));
}

class SvdVariant : public Variant {
public:
    SvdVariant() {
        m_info = {"svd", "SVD oracle (best rank r)", "Wang et al. 2020 §3",
                  "P_r = best rank-r approximation of the exact P (truncated SVD); O = P_r·V (quadratic)",
                  {int_param("rank", "r", "rank r of the truncated SVD P_r = U_r Σ_r V_rᵀ", 32, 1, 65536)},
                  false, false, true};
    }
    const VariantInfo& info() const override { return m_info; }
    Params resolve(const Params& params, const Shape& heads) const override {
        const int rank = params.get_int("rank");
        if (rank > heads.n())
            throw Error("svd: rank r = " + std::to_string(rank) + " > n = " + std::to_string(heads.n()) +
                        ": P has at most n singular values; choose r ≤ n");
        return params;
    }
    double estimate_flops(int heads, int n, int d, int dv, const Params& p) const override {
        return svd_flops(heads, n, d, dv, p.get_int("rank"));
    }
    RunResult run(const Heads& h, const Params& p, const RunOptions& options, Backend& backend) const override {
        const int H = h.heads(), n = h.n(), dv = h.dv(), rank = p.get_int("rank");
        const double p_bytes = 8.0 * H * double(n) * n;
        if (p_bytes > kMaxQuadraticBytes)
            throw Error("svd would hold P and P_r of " + std::to_string(static_cast<int64_t>(p_bytes / (1 << 20))) +
                        " MiB for n = " + std::to_string(n) + ": the oracle is quadratic; choose a smaller n or fewer heads");
        RunResult r;
        r.variant = m_info.id;
        r.params = p;
        bool exact = true;
        Tensor3 Pr;
        {
            CostMeter meter(backend);
            Tensor3 P(H, n, n);
            r.O = Tensor3(H, n, dv);
            DenseAttentionArgs a;
            a.Q = &h.Q, a.K = &h.K, a.V = &h.V, a.O = &r.O, a.P = &P;
            a.scale = static_cast<float>(1.0 / std::sqrt(double(h.d())));
            backend.dense_attention(a);
            Pr = Tensor3(H, n, n);
            for (int hh = 0; hh < H; ++hh) {
                const TruncatedSvd svd = truncated_svd(std::as_const(P).head(hh), rank, true, static_cast<uint64_t>(hh));
                exact = exact && svd.exact;
                Eigen::VectorXf s(svd.S.size());
                for (size_t l = 0; l < svd.S.size(); ++l) s[static_cast<Eigen::Index>(l)] = static_cast<float>(svd.S[l]);
                Pr.head(hh).noalias() = svd.U * s.asDiagonal() * svd.Vt;
            }
            backend.gemm(Pr, false, h.V, false, 1.0f, 0.0f, r.O);
            meter.stop(r.cost);
        }
        const double cells = double(n) * n;
        r.cost.flops = svd_flops(H, n, h.d(), dv, rank);
        r.cost.bytes = 4.0 * H * (n * (2.0 * h.d() + 2.0 * dv) + 2.0 * cells);
        r.structure.notes.push_back(exact ? "P_r from an exact LAPACK SVD of P"
                                          : "n > 2048: P_r from a randomized top-r SVD of P (Halko et al. 2011)");
        if (options.want_matrix && n <= options.max_matrix_n) r.P_eff = std::move(Pr);
        return r;
    }

private:
    VariantInfo m_info;
};

}  // namespace

void add_lowrank_variants(std::vector<std::unique_ptr<Variant>>& out) {
    out.push_back(std::make_unique<LinformerVariant>());
    out.push_back(std::make_unique<SvdVariant>());
}

}  // namespace attnscope
