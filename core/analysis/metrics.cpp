#include "metrics.h"

#include <cmath>
#include <limits>

namespace attnscope {

Reference compute_reference(const Heads& h, bool causal, bool want_P, Backend& backend) {
    Reference ref;
    ref.causal = causal;
    ref.O = Tensor3(h.heads(), h.n(), h.dv());
    ref.lse = Tensor3(h.heads(), h.n(), 1);
    DenseAttentionArgs a;
    a.Q = &h.Q, a.K = &h.K, a.V = &h.V, a.O = &ref.O, a.lse = &ref.lse;
    a.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(h.d())));
    a.causal = causal;
    if (want_P) {
        ref.P.emplace(h.heads(), h.n(), h.n());
        a.P = &*ref.P;
    }
    backend.dense_attention(a);
    return ref;
}

namespace {

double mean_over_heads_rel_err(const Tensor3& approx, const Tensor3& exact) {
    double sum = 0;
    for (int h = 0; h < exact.heads(); ++h) {
        const double denom = exact.head(h).cast<double>().norm();
        const double num = (approx.head(h).cast<double>() - exact.head(h).cast<double>()).norm();
        sum += denom > 0 ? num / denom : num;
    }
    return sum / exact.heads();
}

/// mean_i KL(P_i ‖ P̃_i) averaged over heads; +inf when P̃ is zero where P has mass.
double mean_row_kl(const Tensor3& P, const Tensor3& Pt) {
    const int H = P.heads(), n = P.rows(), m = P.cols();
    double total = 0;
    bool infinite = false;
#pragma omp parallel for collapse(2) reduction(+ : total) reduction(|| : infinite)
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) {
            double kl = 0;
            for (int j = 0; j < m; ++j) {
                const double p = P.at(h, i, j), q = Pt.at(h, i, j);
                if (p <= 0) continue;
                if (q <= 0) {
                    infinite = true;
                    break;
                }
                kl += p * std::log(p / q);
            }
            total += kl;
        }
    return infinite ? std::numeric_limits<double>::infinity() : total / (double(H) * n);
}

bool same_shape(const Tensor3& a, const Tensor3& b) {
    return a.heads() == b.heads() && a.rows() == b.rows() && a.cols() == b.cols();
}

bool all_non_negative(const Tensor3& t) {
    for (int64_t k = 0; k < t.size(); ++k)
        if (t.data()[k] < 0.0f) return false;
    return true;
}

}  // namespace

void compute_metrics(const Reference& ref, const VariantInfo& info, RunResult& r) {
    Metrics& m = r.metrics;
    m = Metrics{};
    // A variant whose output is not attention of this input (fnet mixing the layer input X) has another shape.
    if (same_shape(r.O, ref.O)) m.rel_err_out = mean_over_heads_rel_err(r.O, ref.O);
    if (r.P_eff && ref.P && same_shape(*r.P_eff, *ref.P)) {
        m.rel_err_attn = mean_over_heads_rel_err(*r.P_eff, *ref.P);
        // KL needs a distribution: a kernel that can go negative (performer trig) has none on that run.
        if (info.normalised && all_non_negative(*r.P_eff))
            m.row_kl = mean_row_kl(*ref.P, *r.P_eff);
    }
    if (r.structure.allowed_lse) {
        const Tensor3& allowed = *r.structure.allowed_lse;
        const int H = allowed.heads(), n = allowed.rows();
        m.row_mass_recall.assign(n, 0.0f);
        double total = 0;
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < n; ++i) {
                const double recall = std::exp(double(allowed.at(h, i, 0)) - double(ref.lse.at(h, i, 0)));
                m.row_mass_recall[i] += static_cast<float>(recall / H);
                total += recall;
            }
        m.mass_recall = total / (double(H) * n);
    }
    m.density = r.structure.density;
}

}  // namespace attnscope
