// attnscope — `svd`: the oracle of Wang et al. 2020 §3, the best rank-r approximation P_r of the exact P (truncated
// SVD; Eckart–Young), O = P_r·V. Quadratic by nature: it shows what no rank-r method can beat. Registered with
// `linformer` (core/variants/linformer.cpp) as the low-rank family.
#include <cmath>
#include <memory>
#include <utility>

#include "core/backend/cpu/svd.h"
#include "core/backend/interface/backend.h"
#include "core/variants/linformer.h"
#include "core/variants/registry.h"

namespace attnscope {

namespace {

constexpr double kMaxQuadraticBytes = 8.0 * (1ull << 30);


/// Exact P, its SVD (O(n³) by LAPACK up to kExactSvdLimit, else the randomized sketch's passes), P_r and P_r·V.
double svd_flops(int heads, int n, int d, int dv, int rank) {
    const double cells = double(n) * n;
    const bool exact = n <= kExactSvdLimit;
    return heads * (2.0 * cells * (d + dv) + 2.0 * cells * rank + (exact ? 4.0 * cells * n : 4.0 * cells * (rank + 10) * 8));
}

/// The oracle keeps P_r: explain() hands it to the views.
struct SvdExecution : Execution {
    Tensor3 Pr;  // (H, n, n)
};

class SvdVariant : public Variant {
public:
    SvdVariant() {
        m_info = {
            .id = "svd",
            .name = "SVD oracle (best rank r)",
            .paper = "Wang et al. 2020 §3",
            .summary = "P_r = best rank-r approximation of the exact P (truncated SVD); O = P_r·V (quadratic)",
            .params = {int_param("rank", "r", "rank r of the truncated SVD P_r = U_r Σ_r V_rᵀ", 32, 1, 65536)},
            .normalised = false,
            .short_name = "SVD",
            .key_params = {"rank"},
            .budget_param = "rank"};
    }
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
    std::unique_ptr<Execution> execute(const Plan& plan, const Heads& h, Backend& backend) const override {
        const int H = h.heads(), n = h.n(), dv = h.dv(), rank = plan.params.get_int("rank");
        const double p_bytes = 8.0 * H * double(n) * n;
        if (p_bytes > kMaxQuadraticBytes)
            throw Error("svd would hold P and P_r of " + std::to_string(static_cast<int64_t>(p_bytes / (1 << 20))) +
                        " MiB for n = " + std::to_string(n) + ": the oracle is quadratic; choose a smaller n or fewer heads");
        auto e = std::make_unique<SvdExecution>();
        bool exact = true;
        {
            Tensor3 P(H, n, n);
            e->O = Tensor3(H, n, dv);
            DenseAttentionArgs a;
            a.Q = &h.Q, a.K = &h.K, a.V = &h.V, a.O = &e->O, a.P = &P;
            a.scale = static_cast<float>(1.0 / std::sqrt(double(h.d())));
            backend.dense_attention(a);
            e->Pr = Tensor3(H, n, n);
            for (int hh = 0; hh < H; ++hh) {
                const TruncatedSvd svd = truncated_svd(std::as_const(P).head(hh), rank, true, static_cast<uint64_t>(hh));
                exact = exact && svd.exact;
                Eigen::VectorXf s(svd.S.size());
                for (size_t l = 0; l < svd.S.size(); ++l) s[static_cast<Eigen::Index>(l)] = static_cast<float>(svd.S[l]);
                e->Pr.head(hh).noalias() = svd.U * s.asDiagonal() * svd.Vt;
            }
            backend.gemm(e->Pr, false, h.V, false, 1.0f, 0.0f, e->O);
        }
        const double cells = double(n) * n;
        e->flops = svd_flops(H, n, h.d(), dv, rank);
        e->bytes = 4.0 * H * (n * (2.0 * h.d() + 2.0 * dv) + 2.0 * cells);
        e->structure.notes.push_back(exact ? "P_r from an exact LAPACK SVD of P"
                                           : "n > 2048: P_r from a randomized top-r SVD of P (Halko et al. 2011)");
        return e;
    }
    void explain(const Plan&, Execution& e, const Heads& h, int max_matrix_n, Backend&) const override {
        if (h.n() <= max_matrix_n) e.P_eff = std::move(static_cast<SvdExecution&>(e).Pr);
    }
};

}  // namespace

void add_lowrank_variants(std::vector<std::unique_ptr<Variant>>& out) {
    out.push_back(make_linformer_variant());
    out.push_back(std::make_unique<SvdVariant>());
}

}  // namespace attnscope
