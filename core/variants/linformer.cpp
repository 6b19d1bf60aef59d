// attnscope — `linformer`: the four stand-ins for the learned projections (linformer.h). pool and random are the
// fast O(n·k) path; jl and fitted need the exact P and are O(n²) illustrations, said so in their help and notes.
#include "core/variants/linformer.h"

#include <Eigen/QR>
#include <cmath>
#include <memory>
#include <tuple>
#include <utility>

#include "core/backend/interface/backend.h"
#include "core/backend/shared/random.h"
#include "core/variants/common_params.h"

namespace attnscope {

namespace {

constexpr uint64_t kLinformerStream = 0x4C494E45ull;  // "LINE": E (or R) uses this stream, F the next one
constexpr double kMaxQuadraticBytes = 8.0 * (1ull << 30);

/// First position of segment t when n positions are cut into k contiguous segments (t = k gives n).
int segment_begin(int t, int n, int k) { return static_cast<int>(int64_t(t) * n / k); }

/// The means of the k segments of rows of every head of X: (H, k, cols) — E·X for the pooling E, in O(n·cols).
Tensor3 pooled_rows(const Tensor3& X, int k) {
    const int n = X.rows();
    Tensor3 out(X.heads(), k, X.cols());
#pragma omp parallel for collapse(2) schedule(static)
    for (int h = 0; h < X.heads(); ++h)
        for (int t = 0; t < k; ++t) {
            const int a = segment_begin(t, n, k), b = segment_begin(t + 1, n, k);
            out.head(h).row(t) = X.head(h).middleRows(a, b - a).colwise().sum() / float(b - a);
        }
    return out;
}

/// P̃ = P̄·F for the pooling F without building F: P̃_ij = P̄_{i,seg(j)} / |seg(j)|. Pbar (H, n, k) → (H, n, n).
Tensor3 pooled_effective(const Tensor3& Pbar, int n) {
    const int k = Pbar.cols();
    Tensor3 out(Pbar.heads(), Pbar.rows(), n);
#pragma omp parallel for collapse(2) schedule(static)
    for (int h = 0; h < Pbar.heads(); ++h)
        for (int i = 0; i < Pbar.rows(); ++i)
            for (int t = 0; t < k; ++t) {
                const int a = segment_begin(t, n, k), b = segment_begin(t + 1, n, k);
                const float w = Pbar.at(h, i, t) / float(b - a);
                for (int j = a; j < b; ++j) out.at(h, i, j) = w;
            }
    return out;
}

/// Exact attention of the input at scale s with P materialised: (O, P).
std::pair<Tensor3, Tensor3> exact_with_P(const Heads& h, float scale, Backend& backend) {
    Tensor3 O(h.heads(), h.n(), h.dv()), P(h.heads(), h.n(), h.n());
    DenseAttentionArgs a;
    a.Q = &h.Q, a.K = &h.K, a.V = &h.V, a.O = &O, a.P = &P, a.scale = scale;
    backend.dense_attention(a);
    return {std::move(O), std::move(P)};
}

/// softmax(s·Q·Kpᵀ) (H, n, k) and the output over (Kp, Vp).
std::pair<Tensor3, Tensor3> attention_over(const Heads& h, const Tensor3& Kp, const Tensor3& Vp, float scale,
                                           Backend& backend, bool want_P) {
    Tensor3 O(h.heads(), h.n(), Vp.cols()), Pbar;
    DenseAttentionArgs a;
    a.Q = &h.Q, a.K = &Kp, a.V = &Vp, a.O = &O, a.scale = scale;
    if (want_P) {
        Pbar = Tensor3(h.heads(), h.n(), Kp.rows());
        a.P = &Pbar;
    }
    backend.dense_attention(a);
    return {std::move(O), std::move(Pbar)};
}

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

Tensor3 linformer_pooling(int n, int k) {
    Tensor3 E(1, k, n);
    E.head(0).setZero();
    for (int t = 0; t < k; ++t) {
        const int a = segment_begin(t, n, k), b = segment_begin(t + 1, n, k);
        for (int j = a; j < b; ++j) E.at(0, t, j) = 1.0f / float(b - a);
    }
    return E;
}

double linformer_flops(int heads, int n, int d, int dv, int k) {
    return 2.0 * heads * k * n * (d + dv) + 2.0 * heads * n * k * (d + dv);
}

namespace {

/// What stands in for E and F, decided before the run: the mode and, for random and jl, the drawn matrices.
struct LinformerPlan : Plan {
    LinformerProjection projection = LinformerProjection::Pool;
    bool kernel = false;  // elu+1 over the k projected keys instead of softmax
    int k = 0;            // projected length
    int sharing = 0;      // LinformerSharing of the random draws
    float scale = 1.0f;   // s of softmax(s·QK'ᵀ)
    std::shared_ptr<const LinformerProjections> weights;  // random: E, F; jl: E is R; null otherwise
};

/// What explain() rebuilds P̃ and the projections from.
struct LinformerExecution : Execution {
    Tensor3 Kp, Vp;        // K' = E·K (or E·φ(K)), V' = F·V: pool, random, kernel
    Tensor3 phi_Q, denom;  // kernel: φ(Q) and D
    Tensor3 PRt;           // jl: P·Rᵀ (H, n, k)
    Tensor3 Pbar, F;       // fitted: P̄ (H, n, k) and the least-squares F (H, k, n)
};

/// E·K and F·V through the given projections, then softmax attention over the k rows.
void execute_random(const Heads& h, const LinformerProjections& proj, float scale, Backend& backend,
                    LinformerExecution& e) {
    const int H = h.heads(), n = h.n(), d = h.d(), dv = h.dv(), k = proj.E.rows();
    for (const Tensor3* m : {&proj.E, &proj.F})
        if ((m->heads() != H && m->heads() != 1) || m->rows() != k || m->cols() != n)
            throw Error("linformer: projection " + m->shape_string() + " must be (H or 1, k, n) with n = " +
                        std::to_string(n) + " and k = " + std::to_string(k));
    e.Kp = Tensor3(H, k, d), e.Vp = Tensor3(H, k, dv);
    backend.gemm(proj.E, false, h.K, false, 1.0f, 0.0f, e.Kp);
    backend.gemm(proj.F, false, h.V, false, 1.0f, 0.0f, e.Vp);
    e.O = attention_over(h, e.Kp, e.Vp, scale, backend, false).first;
    e.flops = linformer_flops(H, n, d, dv, k);
    e.bytes = 4.0 * H * (n * (2.0 * d + 2.0 * dv) + 2.0 * k * (d + dv)) + 4.0 * (proj.E.size() + proj.F.size());
}

// Analytic FLOPs of each projection's path (execute() reports the same figure).
double pool_flops(int H, int n, int d, int dv, int k) { return double(H) * n * (d + dv) + 2.0 * H * n * k * (d + dv); }
double jl_flops(int H, int n, int d, int dv, int k) {
    return exact_attention_flops(H, n, d, dv, false) + 2.0 * H * k * n * dv + 2.0 * H * n * n * k + 2.0 * H * n * k * dv;
}
double kernelized_flops(int H, int n, int d, int dv, int k, bool pooled) {
    const double projections = pooled ? double(H) * n * (d + dv) : 2.0 * H * k * n * (d + dv);
    return 6.0 * H * n * d + projections + 2.0 * H * k * d * dv + 2.0 * H * n * d * dv + 2.0 * H * n * d;
}
double linformer_fitted_flops(int H, int n, int d, int dv, int k) {
    return pool_flops(H, n, d, dv, k) + exact_attention_flops(H, n, d, dv, false) + 4.0 * H * n * k * k +
           2.0 * H * n * k * n + 2.0 * H * k * n * dv + 2.0 * H * n * k * dv;
}

/// Linformer combined with a kernel (φ = elu + 1) instead of softmax: O_i = φ(q_i)ᵀ·(K'ᵀV') / φ(q_i)ᵀΣ_t K'_t with
/// K' = E·φ(K), V' = F·V — the associativity of linear attention over the k projected rows. E, F are the pooling
/// (proj null, done as segment means) or the given projections. P̃ = P̄·F with P̄_it ∝ φ(q_i)·K'_t: with a
/// signed E the similarities, and so P̃, can turn negative.
void execute_kernelized(const Heads& h, int k, const LinformerProjections* proj, Backend& backend,
                        LinformerExecution& e) {
    const int H = h.heads(), n = h.n(), d = h.d(), dv = h.dv();
    const bool pooled = proj == nullptr;
    e.phi_Q = Tensor3(H, n, d);
    {
        Tensor3 phi_K(H, n, d);
        FeatureMapArgs fm;
        fm.map = FeatureMap::EluPlusOne;
        fm.X = &h.Q, fm.out = &e.phi_Q, fm.is_query = true;
        backend.feature_map(fm);
        fm.X = &h.K, fm.out = &phi_K, fm.is_query = false;
        backend.feature_map(fm);
        if (pooled) {
            e.Kp = pooled_rows(phi_K, k), e.Vp = pooled_rows(h.V, k);
        } else {
            e.Kp = Tensor3(H, k, d), e.Vp = Tensor3(H, k, dv);
            backend.gemm(proj->E, false, phi_K, false, 1.0f, 0.0f, e.Kp);
            backend.gemm(proj->F, false, h.V, false, 1.0f, 0.0f, e.Vp);
        }
        e.O = Tensor3(H, n, dv);
        e.denom = Tensor3(H, n, 1);
        LinearAttentionArgs la;
        la.phi_Q = &e.phi_Q, la.phi_K = &e.Kp, la.V = &e.Vp, la.O = &e.O, la.denom = &e.denom, la.d_eps = 1e-6f;
        backend.linear_attention(la);
    }
    e.flops = kernelized_flops(H, n, d, dv, k, pooled);
    e.bytes = 4.0 * H * (n * (3.0 * d + 2.0 * dv) + 2.0 * k * (d + dv));
}

/// Pooled Linformer: K' and V' are segment means, so nothing of size k×n is built on the fast path.
void execute_pooled(const Heads& h, int k, float scale, Backend& backend, LinformerExecution& e) {
    const int H = h.heads(), n = h.n(), d = h.d(), dv = h.dv();
    e.Kp = pooled_rows(h.K, k), e.Vp = pooled_rows(h.V, k);
    e.O = attention_over(h, e.Kp, e.Vp, scale, backend, false).first;
    e.flops = pool_flops(H, n, d, dv, k);
    e.bytes = 4.0 * H * (n * (2.0 * d + 2.0 * dv) + 2.0 * k * (d + dv));
}

/// Theorem 1: O = P·RᵀR·V with the exact P (O(n²)); R (H|1, k, n).
void execute_jl(const Heads& h, const Tensor3& R, float scale, Backend& backend, LinformerExecution& e) {
    const int H = h.heads(), n = h.n(), dv = h.dv(), k = R.rows();
    {
        Tensor3 P = exact_with_P(h, scale, backend).second;
        Tensor3 RV(H, k, dv);
        backend.gemm(R, false, h.V, false, 1.0f, 0.0f, RV);
        e.PRt = Tensor3(H, n, k);
        backend.gemm(P, false, R, true, 1.0f, 0.0f, e.PRt);
        e.O = Tensor3(H, n, dv);
        backend.gemm(e.PRt, false, RV, false, 1.0f, 0.0f, e.O);
    }
    e.flops = jl_flops(H, n, h.d(), dv, k);
    e.bytes = 4.0 * H * (n * (2.0 * h.d() + 2.0 * dv) + double(n) * n) + 4.0 * R.size();
}

/// The oracle: pooled E, F = argmin ‖P̄F − P‖_F (least squares per head, O(n²·k)), O = P̄·(F·V).
void execute_fitted(const Heads& h, int k, float scale, Backend& backend, LinformerExecution& e) {
    const int H = h.heads(), n = h.n(), dv = h.dv();
    {
        const Tensor3 Kp = pooled_rows(h.K, k), Vp = pooled_rows(h.V, k);
        e.Pbar = attention_over(h, Kp, Vp, scale, backend, true).second;
        const Tensor3 P = exact_with_P(h, scale, backend).second;
        e.F = Tensor3(H, k, n);
        for (int hh = 0; hh < H; ++hh)
            e.F.head(hh) = e.Pbar.head(hh).colPivHouseholderQr().solve(MatrixRM(P.head(hh)));
        Tensor3 FV(H, k, dv);
        backend.gemm(e.F, false, h.V, false, 1.0f, 0.0f, FV);
        e.O = Tensor3(H, n, dv);
        backend.gemm(e.Pbar, false, FV, false, 1.0f, 0.0f, e.O);
    }
    e.flops = linformer_fitted_flops(H, n, h.d(), dv, k);
    e.bytes = 4.0 * H * (n * (2.0 * h.d() + 2.0 * dv) + double(n) * n + 2.0 * double(n) * k);
}

/// The notes of a plan: what stands in for E and F and what that means.
void linformer_notes(const LinformerPlan& plan, std::vector<std::string>& notes) {
    notes.push_back("non-causal only: E and F mix all positions, future ones included");
    switch (plan.projection) {
        case LinformerProjection::Pool:
            notes.push_back("projection pool: E = F = means of " + std::to_string(plan.k) +
                            " contiguous segments, so P̃ = P̄·F is a row-stochastic blur of P (exact at k = n); "
                            "the paper learns E and F");
            break;
        case LinformerProjection::Random:
            notes.push_back("projection random: untrained E, F ~ N(0, 1/k) — what Linformer is before training; "
                            "it approximates nothing (P̃ is signed and its rows do not sum to 1)");
            break;
        case LinformerProjection::Jl:
            notes.push_back("projection jl: Theorem 1's P·RᵀR·V with R ~ N(0, 1/k) — it needs the exact P, O(n²): "
                            "an illustration of the theorem (error ∝ 1/√k), not a fast method");
            break;
        case LinformerProjection::Fitted:
            notes.push_back("projection fitted: pooled E and F = argmin ‖P̄F − P‖ on this input — an oracle of what "
                            "training F could reach, O(n²)");
            break;
    }
    if (plan.projection == LinformerProjection::Pool || plan.projection == LinformerProjection::Fitted)
        if (plan.sharing != 0) notes.push_back("sharing applies to the random projections only");
    if (plan.kernel)
        notes.push_back("kernel elu+1: φ(Q)·(E·φ(K))ᵀ normalised over the k projected keys instead of softmax — "
                        "Linformer × linear attention; with a signed E the similarities can turn negative");
}

/// P̃ (H, n, n) of a run: P̄·F with P̄ the n×k attention over the projected keys (the pooling F as segment means).
Tensor3 linformer_effective(const LinformerPlan& plan, const LinformerExecution& e, const Heads& h, Backend& backend) {
    const int H = h.heads(), n = h.n(), k = plan.k;
    auto times_F = [&](const Tensor3& Pbar, const Tensor3& F) {
        Tensor3 Pt(H, n, n);
        backend.gemm(Pbar, false, F, false, 1.0f, 0.0f, Pt);
        return Pt;
    };
    if (plan.kernel) {
        Tensor3 Pbar(H, n, k);
        backend.gemm(e.phi_Q, false, e.Kp, true, 1.0f, 0.0f, Pbar);  // similarities φ(q_i)·K'_t
        for (int hh = 0; hh < H; ++hh)
            for (int i = 0; i < n; ++i) {
                const float D = e.denom.at(hh, i, 0);
                Pbar.head(hh).row(i) *= D != 0.0f ? 1.0f / D : 0.0f;
            }
        return plan.weights ? times_F(Pbar, plan.weights->F) : pooled_effective(Pbar, n);
    }
    switch (plan.projection) {
        case LinformerProjection::Pool:
            return pooled_effective(attention_over(h, e.Kp, e.Vp, plan.scale, backend, true).second, n);
        case LinformerProjection::Random:
            return times_F(attention_over(h, e.Kp, e.Vp, plan.scale, backend, true).second, plan.weights->F);
        case LinformerProjection::Jl: return times_F(e.PRt, plan.weights->E);  // P̃ = P·RᵀR
        case LinformerProjection::Fitted: return times_F(e.Pbar, e.F);
    }
    return {};
}

std::unique_ptr<Execution> linformer_execute(const LinformerPlan& plan, const Heads& h, Backend& backend) {
    auto e = std::make_unique<LinformerExecution>();
    const LinformerProjections* drawn = plan.weights.get();
    if (plan.kernel)
        execute_kernelized(h, plan.k, drawn, backend, *e);
    else if (plan.projection == LinformerProjection::Pool)
        execute_pooled(h, plan.k, plan.scale, backend, *e);
    else if (plan.projection == LinformerProjection::Random)
        execute_random(h, *drawn, plan.scale, backend, *e);
    else if (plan.projection == LinformerProjection::Jl)
        execute_jl(h, drawn->E, plan.scale, backend, *e);
    else
        execute_fitted(h, plan.k, plan.scale, backend, *e);
    linformer_notes(plan, e->structure.notes);
    return e;
}

/// The projections as run (copies for inspection: a benchmark never pays 2·k·n floats per head for them) and P̃.
void linformer_explain(const LinformerPlan& plan, LinformerExecution& e, const Heads& h, int max_matrix_n,
                       Backend& backend) {
    const int n = h.n();
    const LinformerProjections* drawn = plan.weights.get();
    if (plan.projection == LinformerProjection::Jl)
        e.structure.projections = Projections{std::nullopt, std::nullopt, drawn->E};
    else if (plan.projection == LinformerProjection::Fitted)
        e.structure.projections = Projections{linformer_pooling(n, plan.k), e.F, std::nullopt};
    else if (drawn)
        e.structure.projections = Projections{drawn->E, drawn->F, std::nullopt};
    else
        e.structure.projections = Projections{linformer_pooling(n, plan.k), linformer_pooling(n, plan.k), std::nullopt};
    if (n <= max_matrix_n) e.P_eff = linformer_effective(plan, e, h, backend);
}

class LinformerVariant : public Variant {
public:
    LinformerVariant() {
        m_info = {
            .id = "linformer",
            .name = "Linformer",
            .paper = "Wang et al. 2020",
            .summary = "K' = E·K, V' = F·V (E, F ∈ R^{k×n}); O = softmax(s·QK'ᵀ)·V'; E, F learned in the paper — here pooled "
                  "(default), random (untrained), Theorem 1's P·RᵀR (jl) or least-squares F (fitted oracle); non-causal",
            .params = {int_param("k", "k", "projected length k of E, F ∈ R^{k×n}", 64, 1, 65536),
                   choice_param("projection", "E, F",
                                "what stands in for the learned E, F: pool = segment means (a row-stochastic blur, exact "
                                "at k = n); random = N(0, 1/k), untrained: approximates nothing; jl = Theorem 1's "
                                "P·RᵀR·V, O(n²), error ∝ 1/√k; fitted = pooled E, F by least squares on this input, "
                                "O(n²): an oracle of what training F could reach",
                                {"pool", "random", "jl", "fitted"}, 0),
                   choice_param("kernel", "sim", "softmax (the paper), or elu+1: a kernel feature map over the k "
                                "projected keys (Linformer × linear attention; pool and random only) — with a signed E "
                                "its similarities can turn negative",
                                {"softmax", "elu+1"}, 0),
                   choice_param("sharing", "sharing", "random projections only: E_h, F_h per head (none), one E, F for "
                                "all heads (headwise), E = F for all heads (key-value)", {"none", "headwise", "key-value"}, 0),
                   seed_param()},
            .short_name = "Linformer",
            .key_params = {"k", "projection"},
            .budget_param = "k"};
        // normalised (the default): pool's P̃ rows are distributions; the KL metrics skip the signed P̃ of the others

    }
    Params resolve(const Params& params, const Shape& heads) const override {
        const int k = params.get_int("k");
        if (k > heads.n())
            throw Error("linformer: k = " + std::to_string(k) + " > n = " + std::to_string(heads.n()) +
                        ": projecting to more rows than positions adds nothing; choose k ≤ n (e.g. --set k=" +
                        std::to_string(std::max(1, heads.n() / 4)) + ")");
        const auto projection = static_cast<LinformerProjection>(params.get_int("projection"));
        if (params.get_int("kernel") == 1 &&
            (projection == LinformerProjection::Jl || projection == LinformerProjection::Fitted))
            throw Error("linformer: kernel elu+1 combines with the pool or random projection only; choose one of them");
        const double quadratic = 4.0 * heads.heads() * double(heads.n()) * heads.n() * 3;
        if ((projection == LinformerProjection::Jl || projection == LinformerProjection::Fitted) &&
            quadratic > kMaxQuadraticBytes)
            throw Error("linformer: projection " + std::string(projection == LinformerProjection::Jl ? "jl" : "fitted") +
                        " needs the exact n×n P (about " + std::to_string(int64_t(quadratic / (1 << 20))) +
                        " MiB at n = " + std::to_string(heads.n()) + "): it illustrates the theory, choose pool or "
                        "random for long inputs");
        return params;
    }
    ExactModel exact_model(const Params& p) const override {
        // Untrained random projections are another model, not an approximation of this attention.
        return static_cast<LinformerProjection>(p.get_int("projection")) == LinformerProjection::Random
                   ? ExactModel::Different
                   : ExactModel::Softmax;
    }
    std::shared_ptr<const VariantWeights> make_weights(const Heads& h, const Params& p) const override {
        if (!uses_random_weights(p)) return nullptr;
        return std::make_shared<const LinformerWeights>(weights_key(h.heads(), h.n(), p), projections(h.heads(), h.n(), p));
    }
    double estimate_flops(int heads, int n, int d, int dv, const Params& p) const override {
        const int k = p.get_int("k");
        if (p.get_int("kernel") == 1)
            return kernelized_flops(heads, n, d, dv, k,
                                    static_cast<LinformerProjection>(p.get_int("projection")) == LinformerProjection::Pool);
        switch (static_cast<LinformerProjection>(p.get_int("projection"))) {
            case LinformerProjection::Pool: return pool_flops(heads, n, d, dv, k);
            case LinformerProjection::Random: return linformer_flops(heads, n, d, dv, k);
            case LinformerProjection::Jl: return jl_flops(heads, n, d, dv, k);
            case LinformerProjection::Fitted: return linformer_fitted_flops(heads, n, d, dv, k);
        }
        return 0;
    }
    int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params& p) const override {
        // Fast paths: O, the projected K' (k, d) and V' (k, dv) per head, and the tiled attention's scratch over k
        // keys (E, F are weights made by make_weights(); P̄ (n×k) is never held). The O(n²) paths hold P (n×n), P̄ or
        // P·Rᵀ (n×k) and F (k×n) per head besides O, with a copy of P for the least-squares solve.
        const int64_t k = p.get_int("k"), H = heads, N = n;
        const DenseAttentionArgs tiles;
        const int64_t fast = int64_t(sizeof(float)) * H * (N * dv + k * (d + dv)) +
                             tiled_attention_scratch_bytes(tiles.tile_rows, tiles.tile_cols, int(k), d, dv);
        if (p.get_int("kernel") == 1)  // φ(Q), φ(K) (H, n, d) and D (H, n) beside O and the projected rows
            return fast + int64_t(sizeof(float)) * H * N * (2ll * d + 1);
        switch (static_cast<LinformerProjection>(p.get_int("projection"))) {
            case LinformerProjection::Pool:
            case LinformerProjection::Random: return fast;
            case LinformerProjection::Jl: return fast + int64_t(sizeof(float)) * H * (N * N + N * k + N * dv);
            case LinformerProjection::Fitted:
                return fast + int64_t(sizeof(float)) * H * (2 * N * N + 2 * N * k + k * dv) + int64_t(sizeof(double)) * N * k;
        }
        return fast;
    }
    std::unique_ptr<Plan> plan(const Heads& h, const Params& p,
                               const std::shared_ptr<const VariantWeights>& weights) const override {
        auto plan = std::make_unique<LinformerPlan>();
        plan->params = p;
        plan->projection = static_cast<LinformerProjection>(p.get_int("projection"));
        plan->kernel = p.get_int("kernel") == 1;
        plan->k = p.get_int("k");
        plan->sharing = p.get_int("sharing");
        plan->scale = static_cast<float>(1.0 / std::sqrt(double(h.d())));
        if (uses_random_weights(p)) {
            // The caller's weights when made for this input's shape and these params, else new ones (a model's
            // weights exist before its forward pass).
            auto given = std::dynamic_pointer_cast<const LinformerWeights>(weights);
            if (!given || given->key != weights_key(h.heads(), h.n(), p))
                given = std::static_pointer_cast<const LinformerWeights>(make_weights(h, p));
            plan->weights = std::shared_ptr<const LinformerProjections>(given, &given->proj);
        }
        return plan;
    }
    std::unique_ptr<Execution> execute(const Plan& base, const Heads& h, Backend& backend) const override {
        return linformer_execute(static_cast<const LinformerPlan&>(base), h, backend);
    }
    void explain(const Plan& base, Execution& e, const Heads& h, int max_matrix_n, Backend& backend) const override {
        linformer_explain(static_cast<const LinformerPlan&>(base), static_cast<LinformerExecution&>(e), h,
                          max_matrix_n, backend);
    }

private:
    static bool uses_random_weights(const Params& p) {
        const auto projection = static_cast<LinformerProjection>(p.get_int("projection"));
        return projection == LinformerProjection::Random || projection == LinformerProjection::Jl;
    }
    using WeightsKey = std::tuple<int, int, int, int, uint64_t>;  // H, n, k, sharing, seed
    /// The random E and F (jl uses E as R): the model's weights.
    struct LinformerWeights final : VariantWeights {
        LinformerWeights(WeightsKey k, LinformerProjections p) : key(k), proj(std::move(p)) {}
        const WeightsKey key;
        const LinformerProjections proj;
    };
    static WeightsKey weights_key(int heads, int n, const Params& p) {
        return {heads, n, p.get_int("k"), p.get_int("sharing"), static_cast<uint64_t>(p.get("seed"))};
    }
    static LinformerProjections projections(int heads, int n, const Params& p) {
        return linformer_projections(heads, n, p.get_int("k"), static_cast<LinformerSharing>(p.get_int("sharing")),
                                     static_cast<uint64_t>(p.get("seed")));
    }
};

}  // namespace

std::unique_ptr<Variant> make_linformer_variant() { return std::make_unique<LinformerVariant>(); }

RunResult linformer_run(const Heads& h, const LinformerProjections& proj, float scale, const RunOptions& options,
                        Backend& backend) {
    static const LinformerVariant variant;
    LinformerPlan plan;
    plan.params = default_params(variant.info().params);
    plan.params.set("projection", static_cast<int>(LinformerProjection::Random));
    plan.params.set("k", proj.E.rows());
    plan.projection = LinformerProjection::Random;
    plan.k = proj.E.rows();
    plan.scale = scale;
    plan.weights = std::make_shared<const LinformerProjections>(proj);
    return variant.run_plan(plan, h, options, backend);
}

}  // namespace attnscope
