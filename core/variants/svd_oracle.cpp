// attnscope — `svd`: the oracle of Wang et al. 2020 §3, the best rank-r approximation P_r of the exact P (truncated
// SVD; Eckart–Young), O = P_r·V. Quadratic by nature: it shows what no rank-r method can beat. Registered with
// `linformer` (core/variants/linformer.cpp) as the low-rank family.
#include <cmath>
#include <memory>
#include <utility>

#include "../primitives/svd.h"
#include "../backend/backend.h"
#include "../backend/cost_meter.h"
#include "linformer.h"
#include "registry.h"

namespace attnscope {

namespace {

constexpr double kMaxQuadraticBytes = 8.0 * (1ull << 30);


/// Exact P, its SVD (O(n³) by LAPACK up to kExactSvdLimit, else the randomized sketch's passes), P_r and P_r·V.
double svd_flops(int heads, int n, int d, int dv, int rank) {
    const double cells = double(n) * n;
    const bool exact = n <= kExactSvdLimit;
    return heads * (2.0 * cells * (d + dv) + 2.0 * cells * rank + (exact ? 4.0 * cells * n : 4.0 * cells * (rank + 10) * 8));
}

class SvdVariant : public Variant {
public:
    SvdVariant() {
        m_info = {
            .id = "svd",
            .name = "SVD oracle (best rank r)",
            .paper = "Wang et al. 2020 §3",
            .summary = "P_r = best rank-r approximation of the exact P (truncated SVD); O = P_r·V (quadratic)",
            .params = {int_param("rank", "r", "rank r of the truncated SVD P_r = U_r Σ_r V_rᵀ", 32, 1, 65536)},
            .has_mask = false,
            .normalised = false,
            .has_matrix = true};
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
    out.push_back(make_linformer_variant());
    out.push_back(std::make_unique<SvdVariant>());
}

}  // namespace attnscope
