// attnscope — deterministic kernel attention: `linear` (Katharopoulos 2020), `efficient` (Shen 2018) and
// `taylor` (Li 2020). Each is one feature map per side plus the linear-attention primitive:
//   linear:    φ = elu + 1;            O_i = φ(q_i)ᵀS / (φ(q_i)ᵀz + ε), causal S_i, z_i = running sums (RNN view)
//   efficient: ρ_q = softmax over features, ρ_k = softmax over positions; O = ρ_q(Q)·(ρ_k(K)ᵀV), no 1/√d,
//              no extra normalisation (rows of ρ_q(Q)ρ_k(K)ᵀ already sum to 1); non-causal
//   taylor:    φ = [1, x̂] with x̂ = x/‖x‖, so φ(q)·φ(k) = 1 + q̂·k̂ ∈ [0, 2];
//              O_i = (Σ_j v_j + (Σ_j v_j k̂_jᵀ) q̂_i) / (n + q̂_i·(Σ_j k̂_j + ε)) (ε on every component of Σk̂)
// None builds an n×n matrix, and none holds φ(Q), φ(K): Backend::kernel_attention computes the features block
// by block where linear attention uses them (on the CPU). P̃ = D⁻¹φ(Q)φ(K)ᵀ is made only for display.
#include "../backend/backend.h"
#include "../backend/cost_meter.h"
#include "common_params.h"
#include "kernel_common.h"
#include "registry.h"

namespace attnscope {

namespace {

/// One side's feature map and the linear-attention settings of a deterministic kernel variant.
struct KernelRecipe {
    FeatureMap q_map, k_map;
    bool prepend_one = false;  // φ = [1, map(x)]
    bool normalise = true;
    float d_eps = 0, z_eps = 0;
    int z_eps_first = 0;
};

/// Analytic FLOPs of run_kernel: a few operations per input element for the maps, then linear attention.
double kernel_flops(const KernelRecipe& k, int heads, int n, int d, int dv, bool causal) {
    return heads * 6.0 * n * d + linear_attention_flops(heads, n, feature_map_columns(k.q_map, 0, d, k.prepend_one), dv,
                                                        causal);
}

RunResult run_kernel(const std::string& id, const KernelRecipe& k, const Heads& h, const Params& p,
                     const RunOptions& options, Backend& backend) {
    RunResult r;
    r.variant = id;
    r.params = p;
    r.causal = p.get_or("causal", 0) != 0;
    const int f = feature_map_columns(k.q_map, 0, h.d(), k.prepend_one);
    KernelAttentionArgs ka;
    ka.q_map.X = &h.Q, ka.q_map.map = k.q_map, ka.q_map.is_query = true, ka.q_map.prepend_one = k.prepend_one;
    ka.k_map.X = &h.K, ka.k_map.map = k.k_map, ka.k_map.is_query = false, ka.k_map.prepend_one = k.prepend_one;
    LinearAttentionArgs& la = ka.attention;
    la.V = &h.V, la.causal = r.causal, la.chunk = kLinearAttentionChunk;
    la.normalise = k.normalise, la.d_eps = k.d_eps, la.z_eps = k.z_eps, la.z_eps_first = k.z_eps_first;
    Tensor3 denom;
    {
        CostMeter meter(backend);
        r.O = Tensor3(h.heads(), h.n(), h.dv());
        denom = Tensor3(h.heads(), h.n(), 1);
        la.O = &r.O, la.denom = &denom;
        backend.kernel_attention(ka);  // φ(Q), φ(K) computed where they are used (never held at (H, n, f))
        meter.stop(r.cost);
    }
    r.cost.flops = kernel_flops(k, h.heads(), h.n(), h.d(), h.dv(), r.causal);
    r.cost.bytes = kernel_bytes(h, f, false);
    if (k.normalise) note_zero_denominators(denom, r.structure);
    if (options.want_matrix && h.n() <= options.max_matrix_n) {
        // Display only: the features the fused run used, materialised for P̃.
        Tensor3 phi_Q(h.heads(), h.n(), f), phi_K(h.heads(), h.n(), f);
        FeatureMapArgs q = ka.q_map, kk = ka.k_map;
        q.out = &phi_Q, kk.out = &phi_K;
        backend.feature_map(q);
        backend.feature_map(kk);
        r.P_eff = kernel_effective_matrix(backend, phi_Q, phi_K, k.normalise ? &denom : nullptr, r.causal);
    }
    note_matrix_skipped(h.n(), options, r.structure);
    return r;
}

/// Peak bytes of run_kernel: see kernel_peak_bytes.
int64_t kernel_estimate(const KernelRecipe& k, int heads, int n, int d, int dv) {
    return kernel_peak_bytes(heads, n, d, dv, feature_map_columns(k.q_map, 0, d, k.prepend_one));
}

/// Taylor's maps: φ = [1, x̂] on both sides.
KernelRecipe taylor_recipe() {
    KernelRecipe k{FeatureMap::L2Normalise, FeatureMap::L2Normalise};
    k.prepend_one = true;
    return k;
}

ParamSpec eps_param(const std::string& help) { return real_param("eps", "ε", help, 1e-6, 0.0, 1.0); }

class LinearVariant : public Variant {
public:
    LinearVariant() {
        m_info = {
            .id = "linear",
            .name = "Linear attention (elu+1)",
            .paper = "Katharopoulos et al. 2020",
            .summary = "φ(x) = elu(x)+1; O_i = φ(Q_i)ᵀΣφ(K_j)V_jᵀ / (φ(Q_i)ᵀΣφ(K_j) + ε)",
            .params = {eps_param("ε added to the denominator φ(Q_i)ᵀΣ_j φ(K_j)"),
                   causal_param(false, "; running sums S_i, Z_i (the RNN view)")},
            .has_mask = false,
            .normalised = true,
            .has_matrix = true};
    }
    const VariantInfo& info() const override { return m_info; }
    Params resolve(const Params& params, const Shape&) const override { return params; }
    RunResult run(const Heads& h, const Params& p, const RunOptions& options, Backend& backend) const override {
        KernelRecipe k{FeatureMap::EluPlusOne, FeatureMap::EluPlusOne};
        k.d_eps = static_cast<float>(p.get("eps"));
        return run_kernel(m_info.id, k, h, p, options, backend);
    }
    int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params&) const override {
        return kernel_estimate({FeatureMap::EluPlusOne, FeatureMap::EluPlusOne}, heads, n, d, dv);
    }
    std::unique_ptr<Decoder> make_decoder(int d, int dv, const Params& p) const override {
        return make_linear_decoder(d, dv, static_cast<float>(p.get("eps")));
    }
    double estimate_flops(int heads, int n, int d, int dv, const Params& p) const override {
        return kernel_flops({FeatureMap::EluPlusOne, FeatureMap::EluPlusOne}, heads, n, d, dv, p.get_bool("causal"));
    }

private:
    VariantInfo m_info;
};

class EfficientVariant : public Variant {
public:
    EfficientVariant() {
        m_info = {
            .id = "efficient",
            .name = "Efficient attention",
            .paper = "Shen et al. 2018",
            .summary = "E = ρ_q(Q)·(ρ_k(K)ᵀV): ρ_q softmax over each row's features, ρ_k softmax over positions; no 1/√d; "
                  "non-causal",
            .params = {},
            .has_mask = false,
            .normalised = true,
            .has_matrix = true};
    }
    const VariantInfo& info() const override { return m_info; }
    Params resolve(const Params& params, const Shape&) const override { return params; }
    RunResult run(const Heads& h, const Params& p, const RunOptions& options, Backend& backend) const override {
        KernelRecipe k{FeatureMap::SoftmaxRows, FeatureMap::SoftmaxPositions};
        k.normalise = false;
        return run_kernel(m_info.id, k, h, p, options, backend);
    }
    int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params&) const override {
        return kernel_estimate({FeatureMap::SoftmaxRows, FeatureMap::SoftmaxPositions}, heads, n, d, dv);
    }
    double estimate_flops(int heads, int n, int d, int dv, const Params&) const override {
        return kernel_flops({FeatureMap::SoftmaxRows, FeatureMap::SoftmaxPositions}, heads, n, d, dv, false);
    }

private:
    VariantInfo m_info;
};

class TaylorVariant : public Variant {
public:
    TaylorVariant() {
        m_info = {
            .id = "taylor",
            .name = "Linear attention (first-order Taylor)",
            .paper = "Li et al. 2020",
            .summary = "sim(q,k) = 1 + q̂·k̂ (L2-normalised); O_i = (Σv_j + (Σv_jk̂_jᵀ)q̂_i) / (n + q̂_i·(Σk̂_j + ε))",
            .params = {eps_param("ε added to every component of Σ_j k̂_j in the denominator"),
                   causal_param(false, "; prefix sums over j ≤ i (n becomes i + 1)")},
            .has_mask = false,
            .normalised = true,
            .has_matrix = true};
    }
    const VariantInfo& info() const override { return m_info; }
    Params resolve(const Params& params, const Shape&) const override { return params; }
    RunResult run(const Heads& h, const Params& p, const RunOptions& options, Backend& backend) const override {
        KernelRecipe k = taylor_recipe();
        k.z_eps = static_cast<float>(p.get("eps"));
        k.z_eps_first = 1;  // column 0 is the constant 1 (it counts n); ε goes on Σk̂ only
        return run_kernel(m_info.id, k, h, p, options, backend);
    }
    int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params&) const override {
        return kernel_estimate(taylor_recipe(), heads, n, d, dv);
    }
    double estimate_flops(int heads, int n, int d, int dv, const Params& p) const override {
        return kernel_flops(taylor_recipe(), heads, n, d, dv, p.get_bool("causal"));
    }

private:
    VariantInfo m_info;
};

}  // namespace

void add_kernel_variants(std::vector<std::unique_ptr<Variant>>& out) {
    out.push_back(std::make_unique<LinearVariant>());
    out.push_back(std::make_unique<EfficientVariant>());
    out.push_back(std::make_unique<TaylorVariant>());
}

}  // namespace attnscope
