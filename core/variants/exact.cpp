// attnscope — `full` (Vaswani 2017) and `flash` (Dao 2022/2023): the two exact variants.
// `full` materialises P (n×n per head) as the textbook implementation does; `flash` runs the tiled online
// softmax with O(n) extra memory and recomputes P only when a heatmap asks for it. With a mask modifier both run
// masked_exact_attention (the flash tile kernel over the mask's blocks): the dense primitive knows only causality.

#include <algorithm>
#include <cmath>

#include "core/backend/interface/backend.h"
#include "core/variants/common_params.h"
#include "core/variants/masked_exact.h"
#include "core/variants/modifiers.h"
#include "core/variants/registry.h"
#include "core/variants/sparse_common.h"

namespace attnscope {

namespace {

/// Analytic cost of exact attention: QKᵀ and PV, halved by causality; bytes of Q, K, V, O (+P).
void exact_cost(const Heads& h, bool causal, bool materialised, Execution& cost) {
    const double cells = causal ? 0.5 * h.n() * (h.n() + 1.0) : double(h.n()) * h.n();
    cost.flops = exact_attention_flops(h.heads(), h.n(), h.d(), h.dv(), causal);
    cost.bytes = 4.0 * h.heads() * h.n() * (2.0 * h.d() + 2.0 * h.dv()) + (materialised ? 4.0 * h.heads() * cells : 0.0);
}

/// full keeps the P it materialised: explain() hands it to the views.
struct FullExecution : Execution {
    Tensor3 P;  // (H, n, n)
};

/// What a mask modifier adds to full's or flash's peak: L, the block-sparse primitive's scratch and the layout (every
/// block stored and masked, as a bound).
int64_t masked_extra_bytes(int heads, int n, int d, int dv, const Params& p) {
    if (!has_mask_modifier(p)) return 0;
    const int64_t b = kDefaultLayoutBlock, nb = (n + b - 1) / b;
    return int64_t(sizeof(float)) * heads * n + block_sparse_scratch_bytes(int(b), d, dv) + 3 * nb * nb * (8 + 8 * b);
}

/// Runs the masked exact model for full or flash: O, the density, the FLOPs of the kept cells, a note, and (for full)
/// the materialised P.
void run_masked(const Plan& plan, const Heads& h, Backend& backend, Execution& e, Tensor3* P) {
    const Modifiers mods = modifiers_of(plan.params, h);
    const float scale = static_cast<float>(plan.params.get("scale"));
    MaskedExact run = masked_exact_attention(h, scale, plan.causal, mods, backend);
    if (P) *P = masked_exact_matrix(h, scale, mods, run);
    e.O = std::move(run.O);
    e.structure.density = masked_exact_density(run, plan.causal);
    e.flops = double(layout_allowed_cells(run.layout)[0]) * h.heads() * 2.0 * (h.d() + h.dv());
    e.structure.notes.push_back("mask modifier " + mods.label() + ": exact softmax over the cells it keeps, run by the "
                                "flash tile kernel over its " + std::to_string(run.layout.block) + "×" +
                                std::to_string(run.layout.block) + " blocks (the dense primitive masks causally only)");
}

class FullVariant : public Variant {
public:
    FullVariant() {
        m_info = {
            .id = "full",
            .name = "Full softmax",
            .paper = "Vaswani et al. 2017",
            .summary = "softmax(s·QKᵀ + causal mask)·V with P materialised (n×n per head)",
            .params = with_modifier_params({scale_param(), causal_param(false)}, true),
            .short_name = "Full softmax",
            .key_params = {},
            .signed_matrix = false,
            .budget_param = ""};
    }
    std::unique_ptr<Execution> execute(const Plan& plan, const Heads& h, Backend& backend) const override {
        const double p_bytes = 4.0 * h.heads() * double(h.n()) * h.n();
        if (p_bytes > kMaxMaterialisedBytes)
            throw Error("full would materialise P of " + std::to_string(static_cast<int64_t>(p_bytes / (1 << 20))) +
                        " MiB for n = " + std::to_string(h.n()) + ": use flash (same result, O(n) memory)");
        auto e = std::make_unique<FullExecution>();
        if (has_mask_modifier(plan.params)) {
            exact_cost(h, plan.causal, true, *e);
            run_masked(plan, h, backend, *e, &e->P);
            return e;
        }
        e->O = Tensor3(h.heads(), h.n(), h.dv());
        e->P = Tensor3(h.heads(), h.n(), h.n());
        DenseAttentionArgs a;
        a.Q = &h.Q, a.K = &h.K, a.V = &h.V, a.O = &e->O, a.P = &e->P;
        a.scale = static_cast<float>(plan.params.get("scale"));
        a.score_mod = modifiers_of(plan.params, h).score;
        a.causal = plan.causal;
        backend.dense_attention(a);
        exact_cost(h, plan.causal, true, *e);
        e->structure.density = 1.0;
        return e;
    }
    void explain(const Plan& plan, Execution& e, const Heads& h, int max_matrix_n, Backend&) const override {
        if (h.n() > max_matrix_n) return;
        e.P_eff = std::move(static_cast<FullExecution&>(e).P);
        if (has_mask_modifier(plan.params))
            e.structure.mask = masked_exact_reasons(h.heads(), h.n(), plan.causal, modifiers_of(plan.params, h).mask);
    }
    /// A mask modifier's kept cells depend on the input (its documents): the dense count bounds them.
    bool flops_estimate_is_bound(const Params& p) const override { return has_mask_modifier(p); }
    int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params& p) const override {
        // O and P, nothing else: the materialised primitive writes scores into P in place.
        return int64_t(sizeof(float)) * heads * int64_t(n) * (int64_t(dv) + n) + masked_extra_bytes(heads, n, d, dv, p);
    }
    std::unique_ptr<Decoder> make_decoder(int d, int dv, const Params& p) const override {
        // The KV-cache decoder scores plain logits: a modified model has none.
        if (has_modifiers(p)) return nullptr;
        return make_kv_cache_decoder(d, dv, static_cast<float>(p.get("scale")));
    }
    static constexpr double kMaxMaterialisedBytes = 8.0 * (1ull << 30);
};

class FlashVariant : public Variant {
public:
    FlashVariant() {
        m_info = {
            .id = "flash",
            .name = "FlashAttention (tiled exact)",
            .paper = "Dao et al. 2022/2023",
            .summary = "same result as full, tiled with an online softmax (running max m, sum ℓ); keeps L = m + log ℓ",
            .params = with_modifier_params({int_param("tile_rows", "B_r", "query rows per tile B_r", 64, 1, 1024),
                   int_param("tile_cols", "B_c", "key columns per tile B_c", 64, 1, 4096),
                   scale_param(), causal_param(false),
                   choice_param("precision", "prec",
                                "fp32, or on CUDA tensor cores with fp32 accumulation: tf32 (TF32 inputs, ~1e-3 "
                                "relative error; kernel own), bf16 or fp16 (Q, K, V rounded to 16 bits; kernel "
                                "cutlass); the CPU computes fp32 either way",
                                {"fp32", "tf32", "bf16", "fp16"}, 0),
                   choice_param("kernel", "kernel",
                                "CUDA kernel: own (attnscope's teaching kernels: fp32, tf32), cutlass (CUTLASS's fused "
                                "attention, the kernel of torch's memory-efficient SDPA: fp32 as 3×TF32 on tensor "
                                "cores, bf16, fp16; d, dv ≤ 128 and multiples of 8, no score modifier) or best "
                                "(cutlass where it takes the run, else own: as measured, the faster); the CPU has "
                                "one kernel",
                                {"own", "cutlass", "best"}, 2)}, true),
            .short_name = "Flash",
            .key_params = {},
            .signed_matrix = false,
            .budget_param = ""};
    }
    std::unique_ptr<Execution> execute(const Plan& plan, const Heads& h, Backend& backend) const override {
        auto e = std::make_unique<Execution>();
        if (has_mask_modifier(plan.params)) {
            exact_cost(h, plan.causal, false, *e);
            run_masked(plan, h, backend, *e, nullptr);
            return e;
        }
        DenseAttentionArgs a = args(plan, h);
        e->O = Tensor3(h.heads(), h.n(), h.dv());
        auto lse = std::make_shared<Tensor3>(h.heads(), h.n(), 1);
        a.O = &e->O, a.lse = &*lse;
        // The picture of P comes out of the same pass on the CPU: each bin's largest weight is exp(max score − L).
        std::shared_ptr<Tensor3> picture;
        if (plan.picture_size > 0 && backend.name() == "cpu") {
            const int s = std::min(h.n(), plan.picture_size);
            picture = std::make_shared<Tensor3>(h.heads(), s, s);
            a.pooled = &*picture;
        }
        backend.dense_attention(a);
        exact_cost(h, plan.causal, false, *e);
        e->structure.density = 1.0;
        e->structure.lse = std::move(lse);
        e->structure.picture = std::move(picture);
        if (const std::string note = kernel_note(a, backend.name()); !note.empty()) e->structure.notes.push_back(note);
        return e;
    }
    void explain(const Plan& plan, Execution& e, const Heads& h, int max_matrix_n, Backend& backend) const override {
        if (h.n() > max_matrix_n) return;
        if (has_mask_modifier(plan.params)) {
            const Modifiers mods = modifiers_of(plan.params, h);
            const float scale = static_cast<float>(plan.params.get("scale"));
            e.P_eff = masked_exact_matrix(h, scale, mods, masked_exact_attention(h, scale, plan.causal, mods, backend));
            e.structure.mask = masked_exact_reasons(h.heads(), h.n(), plan.causal, mods.mask);
            return;
        }
        // Recompute P (FlashAttention keeps only L; the backward pass does the same).
        DenseAttentionArgs a = args(plan, h);
        Tensor3 P(h.heads(), h.n(), h.n()), O2(h.heads(), h.n(), h.dv());
        a.O = &O2, a.P = &P;
        backend.dense_attention(a);
        e.P_eff = std::move(P);
    }
    /// A mask modifier's kept cells depend on the input (its documents): the dense count bounds them.
    bool flops_estimate_is_bound(const Params& p) const override { return has_mask_modifier(p); }
    int64_t estimate_peak_bytes(int heads, int n, int d, int dv, const Params& p) const override {
        // O and L, plus the CPU primitive's tile scratch.
        return int64_t(sizeof(float)) * heads * int64_t(n) * (dv + 1) +
               tiled_attention_scratch_bytes(p.get_int("tile_rows"), p.get_int("tile_cols"), n, d, dv) +
               masked_extra_bytes(heads, n, d, dv, p);
    }
    std::unique_ptr<Decoder> make_decoder(int d, int dv, const Params& p) const override {
        // The KV-cache decoder scores plain logits: a modified model has none.
        if (has_modifiers(p)) return nullptr;
        return make_kv_cache_decoder(d, dv, static_cast<float>(p.get("scale")));
    }

private:
    /// The primitive's arguments for this plan (outputs unset).
    static DenseAttentionArgs args(const Plan& plan, const Heads& h) {
        DenseAttentionArgs a;
        a.Q = &h.Q, a.K = &h.K, a.V = &h.V;
        a.scale = static_cast<float>(plan.params.get("scale"));
        a.score_mod = modifiers_of(plan.params, h).score;
        a.causal = plan.causal;
        a.tile_rows = plan.params.get_int("tile_rows");
        a.tile_cols = plan.params.get_int("tile_cols");
        a.precision = static_cast<AttentionPrecision>(plan.params.get_int("precision"));
        static constexpr DenseKernel kKernels[] = {DenseKernel::Own, DenseKernel::Cutlass, DenseKernel::Best};
        a.kernel = kKernels[plan.params.get_int("kernel")];
        return a;
    }
    /// What a run's precision and kernel meant on this backend ("" for fp32 on attnscope's own kernel).
    static std::string kernel_note(const DenseAttentionArgs& a, const std::string& backend) {
        static const char* const kNames[] = {"fp32", "tf32", "bf16", "fp16"};
        const std::string precision = kNames[static_cast<int>(a.precision)];
        if (backend != "cuda") {
            if (a.precision == AttentionPrecision::Fp32 && a.kernel != DenseKernel::Cutlass) return "";
            return "precision " + precision + (a.kernel == DenseKernel::Cutlass ? " and kernel cutlass apply" : " applies") +
                   " on CUDA only: the " + backend + " backend computed fp32";
        }
        if (dense_kernel_to_run(a) == DenseKernel::Own) {
            if (a.precision == AttentionPrecision::Tf32)
                return "precision tf32: Q·Kᵀ and P·V on tensor cores (TF32 inputs); P shown is fp32";
            return a.kernel == DenseKernel::Best ? "kernel best ran attnscope's own kernel, as CUTLASS's does not take this "
                                                   "run (" + cutlass_refusal(a) + ")"
                                                 : "";
        }
        if (a.precision == AttentionPrecision::Fp32)
            return "CUTLASS's kernel: Q·Kᵀ and P·V as 3×TF32 on tensor cores (about fp32's accuracy); P shown is fp32";
        return "CUTLASS's kernel, precision " + precision + ": Q, K, V rounded to " + precision +
               ", fp32 accumulation; P shown is fp32";
    }

};

}  // namespace

void add_exact_variants(std::vector<std::unique_ptr<Variant>>& out) {
    out.push_back(std::make_unique<FullVariant>());
    out.push_back(std::make_unique<FlashVariant>());
}

}  // namespace attnscope
