// attnscope — `performer` (Choromanski et al. 2021): FAVOR+ random features and linear attention.
// φ(x) = m^-½·exp(ωᵢᵀx̂ − ‖x̂‖²/2 − stabiliser), x̂ = d^-¼·x, so E[φ(q)·φ(k)] = exp(q·k/√d), the softmax
// kernel; O = D⁻¹·φ(Q)·(φ(K)ᵀV), D = diag(φ(Q)·φ(K)ᵀ1), causal by prefix sums. Kinds: positive (FAVOR+),
// hyperbolic (exp(±ωx̂), 2m columns), trig (sin, cos: the original random Fourier features, may be
// negative), relu (generalised kernel). ω is drawn by plan() (a model's features exist before its forward
// pass, so they are not timed). Structure::features: ω (1, m, d) always; φ(Q), φ(K) (H, n, f) from explain().
// Conventions (vs peers): the stabiliser is the max of the whole exponent (ωx̂ − ‖x̂‖²/2) per query row and
// per head for keys, so the largest feature is exactly m^-½ and nothing over- or underflows wholesale;
// performer-pytorch subtracts the max of ωx̂ only and adds ε = 1e-4 to every feature. Both shifts cancel
// in D⁻¹, the ε does not: we follow the paper (no ε). See tests/golden/README.md.
#include "core/variants/performer.h"

#include <Eigen/QR>
#include <cmath>

#include "core/backend/interface/backend.h"
#include "core/backend/shared/random.h"
#include "core/variants/common_params.h"
#include "core/variants/kernel_common.h"
#include "core/variants/registry.h"

namespace attnscope {

namespace {

// Streams of the counter-based generator (random.h): one per orthogonal block, one for the norms.
constexpr uint64_t kStreamBlock = 0x5045524630000000ull;  // + block index
constexpr uint64_t kStreamNorm = 0x50455246'4E4F524Dull;
constexpr uint64_t kStreamIid = 0x50455246'49494400ull;

const std::vector<std::string> kKinds = {"positive", "hyperbolic", "trig", "relu"};
const std::vector<std::string> kNorms = {"chi", "sqrt_d"};

FeatureMap kind_map(int kind) {
    switch (kind) {
        case 1: return FeatureMap::FavorHyperbolic;
        case 2: return FeatureMap::FavorTrig;
        case 3: return FeatureMap::FavorRelu;
        default: return FeatureMap::FavorPositive;
    }
}

/// ⌈d·ln d⌉, at least 1 (d = 1 gives 0).
int default_features(int d) { return std::max(1, static_cast<int>(std::ceil(d * std::log(static_cast<double>(d))))); }

/// Feature maps: two projections (2·n·m·d each) and a few operations per feature; then linear attention.
double performer_flops(int heads, int n, int d, int dv, int m, int f, bool causal) {
    return heads * (4.0 * n * m * d + 4.0 * n * f) + linear_attention_flops(heads, n, f, dv, causal);
}

/// ω for this input: drawn from the seed, or given (tests, peers).
struct PerformerPlan : Plan {
    Tensor3 omega;             // (1, m, d)
    bool omega_given = false;  // supplied by the caller instead of drawn
};

/// A run keeps D; explain() makes φ(Q), φ(K) again (the run never holds them), shows them and builds P̃ from them.
struct PerformerExecution : Execution {
    Tensor3 denom;
};

/// The FAVOR map of the plan's kind for queries (is_query) or keys; out unset.
FeatureMapArgs favor_map(const PerformerPlan& plan, const Heads& h, bool is_query) {
    FeatureMapArgs fa;
    fa.omega = &plan.omega, fa.map = kind_map(plan.params.get_int("kind"));
    fa.x_scale = static_cast<float>(std::pow(double(h.d()), -0.25));
    fa.X = is_query ? &h.Q : &h.K, fa.is_query = is_query;
    return fa;
}

class PerformerVariant : public Variant {
public:
    PerformerVariant() {
        m_info = {
            .id = "performer",
            .name = "Performer (FAVOR+)",
            .paper = "Choromanski et al. 2021",
            .summary = "φ(x) = m^-½·exp(ωᵢᵀx̂ − ‖x̂‖²/2), x̂ = d^-¼x; O = D⁻¹·φ(Q)·(φ(K)ᵀV)",
            .params = {with_auto_default(int_param("features", "m", "random features m (ω ∈ R^{m×d}); error shrinks as m grows",
                                               0, 1, 16384),
                                     "⌈d·ln d⌉"),
                   choice_param("kind", "φ",
                                "positive: exp(ωx̂ − ‖x̂‖²/2); hyperbolic: exp(±ωx̂ − ‖x̂‖²/2) (2m columns); "
                                "trig: exp(‖x̂‖²/2)(sin ωx̂, cos ωx̂) (may be negative); relu: max(ωx̂, 0)",
                                kKinds, 0),
                   bool_param("orthogonal", "ORF", "orthogonal random features (QR blocks) instead of i.i.d. Gaussian ω",
                              true),
                   choice_param("norm_scaling", "‖ωᵢ‖", "row norms of orthogonal ω: chi = χ(d) samples, sqrt_d = √d",
                                kNorms, 0),
                   causal_param(false, "; prefix sums of φ(K_j)V_jᵀ"), seed_param()},
            .short_name = "Performer",
            .key_params = {"features", "orthogonal"},
            .budget_param = "features"};
        m_info.params[0].log_scale = true;
    }
    Params resolve(const Params& params, const Shape& heads) const override {
        Params p = params;
        if (!p.has("features")) p.set("features", default_features(heads.d()));
        return p;
    }
    std::unique_ptr<Plan> plan(const Heads& h, const Params& p, const std::shared_ptr<const VariantWeights>&) const override {
        auto plan = std::make_unique<PerformerPlan>();
        plan->params = p;
        plan->causal = p.get_bool("causal");
        plan->omega = performer_omega(p.get_int("features"), h.d(), p.get_bool("orthogonal"),
                                      p.get_int("norm_scaling") == 1 ? OmegaNorm::SqrtD : OmegaNorm::Chi,
                                      static_cast<uint64_t>(p.get("seed")));
        return plan;
    }
    std::unique_ptr<Execution> execute(const Plan& plan, const Heads& h, Backend& backend) const override;
    void explain(const Plan& plan, Execution& e, const Heads& h, int max_matrix_n, Backend& backend) const override;
    int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params& p) const override {
        // ω (m, d) and its QR blocks in doubles, φ(Q) and φ(K) (H, n, f), plus what linear attention holds (O, D,
        // sums and per-thread feature blocks: kernel_peak_bytes).
        const int m = p.get_int("features"), f = feature_map_columns(kind_map(p.get_int("kind")), m, d);
        return int64_t(sizeof(float)) * (int64_t(m) * d + 2ll * heads * n * f) + 3ll * sizeof(double) * d * d +
               int64_t(sizeof(double)) * m * d + kernel_peak_bytes(heads, n, d, dv, f);
    }
    double estimate_flops(int heads, int n, int d, int dv, const Params& p) const override {
        const int m = p.get_int("features");
        return performer_flops(heads, n, d, dv, m, feature_map_columns(kind_map(p.get_int("kind")), m, d),
                               p.get_bool("causal"));
    }
};

}  // namespace

Tensor3 performer_omega(int m, int d, bool orthogonal, OmegaNorm norm, uint64_t seed) {
    if (m < 1 || d < 1) throw Error("performer needs m ≥ 1 features and d ≥ 1 (got m = " + std::to_string(m) +
                                    ", d = " + std::to_string(d) + ")");
    Tensor3 omega(1, m, d);
    if (!orthogonal) {
        for (int r = 0; r < m; ++r)
            for (int c = 0; c < d; ++c)
                omega.at(0, r, c) = static_cast<float>(rng::normal(seed, kStreamIid, uint64_t(r) * d + c));
        return omega;
    }
    const int blocks = (m + d - 1) / d;
    for (int b = 0; b < blocks; ++b) {
        Eigen::MatrixXd G(d, d);
        for (int r = 0; r < d; ++r)
            for (int c = 0; c < d; ++c) G(r, c) = rng::normal(seed, kStreamBlock + b, uint64_t(r) * d + c);
        const Eigen::HouseholderQR<Eigen::MatrixXd> qr(G);
        Eigen::MatrixXd Q = qr.householderQ();
        // Signs of diag(R) make Q Haar-distributed (Householder alone biases the column signs).
        for (int k = 0; k < d; ++k)
            if (qr.matrixQR()(k, k) < 0) Q.col(k) = -Q.col(k);
        const int rows = std::min(d, m - b * d);
        for (int r = 0; r < rows; ++r) {
            const int row = b * d + r;
            double length = std::sqrt(static_cast<double>(d));
            if (norm == OmegaNorm::Chi) {
                double sq = 0;
                for (int c = 0; c < d; ++c) {
                    const double g = rng::normal(seed, kStreamNorm, uint64_t(row) * d + c);
                    sq += g * g;
                }
                length = std::sqrt(sq);
            }
            for (int c = 0; c < d; ++c) omega.at(0, row, c) = static_cast<float>(length * Q(c, r));
        }
    }
    return omega;
}

std::unique_ptr<Execution> PerformerVariant::execute(const Plan& base, const Heads& h, Backend& backend) const {
    const auto& plan = static_cast<const PerformerPlan&>(base);
    const Params& p = plan.params;
    const int m = p.get_int("features"), d = h.d();
    const FeatureMap map = kind_map(p.get_int("kind"));
    const int f = feature_map_columns(map, m, d);
    require_shape(plan.omega, 1, m, d, plan.omega_given ? "the given ω" : "ω");
    auto e = std::make_unique<PerformerExecution>();
    e->O = Tensor3(h.heads(), h.n(), h.dv());
    e->denom = Tensor3(h.heads(), h.n(), 1);
    // One call: a device keeps φ(Q), φ(K) where it makes them (the CPU makes them as feature_map does).
    KernelAttentionArgs ka;
    ka.q_map = favor_map(plan, h, true), ka.k_map = favor_map(plan, h, false);
    LinearAttentionArgs& la = ka.attention;
    la.V = &h.V, la.causal = plan.causal, la.chunk = kLinearAttentionChunk, la.O = &e->O, la.denom = &e->denom;
    backend.kernel_attention(ka);
    e->flops = performer_flops(h.heads(), h.n(), d, h.dv(), m, f, plan.causal);
    e->bytes = kernel_bytes(h, f) + 4.0 * m * d;

    Structure& s = e->structure;
    note_zero_denominators(e->denom, s);
    if (map == FeatureMap::FavorHyperbolic || map == FeatureMap::FavorTrig)
        s.notes.push_back("φ has 2m = " + std::to_string(f) + " columns (" +
                          (map == FeatureMap::FavorTrig ? "sin, cos" : "exp(+ωx̂), exp(−ωx̂)") + ")");
    if (map == FeatureMap::FavorTrig)
        s.notes.push_back("trig features can be negative: P̃ may have negative entries and D can approach 0 "
                          "(row_kl does not apply)");
    if (!plan.omega_given && !p.get_bool("orthogonal"))
        s.notes.push_back("orthogonal off: ω rows are i.i.d. N(0, I_d) (norm_scaling unused)");
    s.features = FeatureMaps{plan.omega, std::nullopt, std::nullopt};
    return e;
}

void PerformerVariant::explain(const Plan& plan, Execution& base, const Heads& h, int max_matrix_n,
                               Backend& backend) const {
    auto& e = static_cast<PerformerExecution&>(base);
    if (h.n() > max_matrix_n) return;
    const auto& p = static_cast<const PerformerPlan&>(plan);
    const int f = feature_map_columns(kind_map(p.params.get_int("kind")), p.params.get_int("features"), h.d());
    Tensor3 phi_Q(h.heads(), h.n(), f), phi_K(h.heads(), h.n(), f);
    FeatureMapArgs fa = favor_map(p, h, true);
    fa.out = &phi_Q;
    backend.feature_map(fa);
    fa = favor_map(p, h, false);
    fa.out = &phi_K;
    backend.feature_map(fa);
    e.P_eff = kernel_effective_matrix(backend, phi_Q, phi_K, &e.denom, plan.causal);
    e.structure.features->phi_Q = std::move(phi_Q);
    e.structure.features->phi_K = std::move(phi_K);
}

RunResult run_performer(const Heads& h, const Params& p, const RunOptions& options, Backend& backend,
                        const Tensor3* omega) {
    static const PerformerVariant variant;
    if (!omega) return variant.run(h, p, options, backend);
    PerformerPlan plan;
    plan.params = p;
    plan.causal = p.get_bool("causal");
    plan.omega = *omega;
    plan.omega_given = true;
    return variant.run_plan(plan, h, options, backend);
}

void add_performer_variants(std::vector<std::unique_ptr<Variant>>& out) {
    out.push_back(std::make_unique<PerformerVariant>());
}

}  // namespace attnscope
