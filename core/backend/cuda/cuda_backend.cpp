// attnscope — CudaBackend: checks shapes on the host (same messages as the CPU backend), then routes each
// primitive to its family in core/backend/cuda/*.cu through the host-pointer entries of cuda_primitives.h.
#include "core/backend/cuda/cuda_backend.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>


namespace attnscope {

std::string cuda_probe_device() { return cuda::probe_device(); }

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<MeasuredCudaBackend>(); }

CudaBackend::CudaBackend() {
    const std::string why = cuda::probe_device();
    if (!why.empty()) throw Error("the CUDA backend is not available: " + why + "; use --backend cpu");
    m_ctx = cuda::make_context();
    m_description = cuda::device_description();
}

std::string CudaBackend::description() const { return m_description; }

void CudaBackend::gemm(const Tensor3& A, bool ta, const Tensor3& B, bool tb, float alpha, float beta, Tensor3& C) {
    const int H = C.heads();
    const auto [r, k, c] = validate_gemm(A, ta, B, tb, C);
    cuda::gemm(*m_ctx, {A.data(), A.heads(), A.rows(), A.cols()}, ta, {B.data(), B.heads(), B.rows(), B.cols()}, tb,
               alpha, beta, C.data(), H, r, c);
}

void CudaBackend::dense_attention(const DenseAttentionArgs& a) {
    validate_dense_attention(a);
    if (a.pooled)
        throw Error("the pooled picture of dense attention is computed on the CPU backend only: run it with "
                    "--backend cpu, or materialise P and pool it with pooled_view");
    cuda::AttentionShape s;
    s.H = a.Q->heads(), s.n = a.Q->rows(), s.m = a.K->rows(), s.d = a.Q->cols(), s.dv = a.V->cols();
    s.scale = a.scale, s.causal = a.causal, s.mod = a.score_mod;
    float* lse = a.lse ? a.lse->data() : nullptr;
    if (a.P)
        cuda::materialised_attention(*m_ctx, s, a.Q->data(), a.K->data(), a.V->data(), a.O->data(), lse, a.P->data());
    else if (dense_kernel_to_run(a) == DenseKernel::Cutlass)
        cutlass_attention(a, s, lse);
    else if (a.precision == AttentionPrecision::Tf32)
        cuda::flash_attention_tf32(*m_ctx, s, a.Q->data(), a.K->data(), a.V->data(), a.O->data(), lse);
    else if (a.precision != AttentionPrecision::Fp32 && a.kernel == DenseKernel::Own)
        throw Error("precision bf16 and fp16 run on CUTLASS's kernel: set kernel=cutlass or best (attnscope's own "
                    "kernels compute fp32 or tf32)");
    else if (a.precision != AttentionPrecision::Fp32)
        throw Error("precision bf16 and fp16 run on CUTLASS's kernel only, which cannot take this call: " +
                    cutlass_refusal(a));
    else
        cuda::flash_attention(*m_ctx, s, a.Q->data(), a.K->data(), a.V->data(), a.O->data(), lse);
}

void CudaBackend::cutlass_attention(const DenseAttentionArgs& a, const cuda::AttentionShape& s, float* lse) {
    validate_cutlass_attention(a);
    const cuda::CutlassElement element = a.precision == AttentionPrecision::Bf16   ? cuda::CutlassElement::Bf16
                                         : a.precision == AttentionPrecision::Fp16 ? cuda::CutlassElement::F16
                                                                                   : cuda::CutlassElement::F32;
    cuda::flash_attention_cutlass(*m_ctx, s, element, a.Q->data(), a.K->data(), a.V->data(), a.O->data(), lse);
}

void CudaBackend::keep_inputs_on_device(const std::vector<const Tensor3*>& tensors) {
    for (const Tensor3* t : tensors)
        if (t) cuda::keep_resident(*m_ctx, t->data(), size_t(t->size()) * sizeof(float));
}

void CudaBackend::release_device_inputs() { cuda::forget_resident(*m_ctx); }

void CudaBackend::pooled_view(const Tensor3& M, int size, PoolMode mode, Tensor3& out) {
    validate_pooled_view(size);
    const int sr = std::min(M.rows(), size), sc = std::min(M.cols(), size);
    out = Tensor3(M.heads(), sr, sc);
    cuda::pooled_view(*m_ctx, M.data(), M.heads(), M.rows(), M.cols(), sr, sc, mode, out.data());
}

// The block-sparse kernel (core/backend/cuda/block_sparse_attention.cuh), any head dim (sliced above 128).
void CudaBackend::block_sparse_attention(const BlockSparseAttentionArgs& a) {
    validate_block_sparse_attention(a);
    const int d = a.Q->cols(), dv = a.V->cols();
    cuda::BlockSparseShape s;
    s.H = a.Q->heads(), s.n = a.Q->rows(), s.d = d, s.dv = dv, s.scale = a.scale, s.mod = a.score_mod;
    cuda::block_sparse_attention(*m_ctx, s, *a.layout, a.Q->data(), a.K->data(), a.V->data(), a.O->data(),
                                 a.lse ? a.lse->data() : nullptr);
}

// The line kernel (core/backend/cuda/vertical_slash_attention.cuh): each block of 64 query rows gathers its merged key
// ranges, so the work follows the kept lines.
void CudaBackend::vertical_slash_attention(const VerticalSlashAttentionArgs& a) {
    validate_vertical_slash_attention(a);
    cuda::VerticalSlashShape s;
    s.H = a.Q->heads(), s.n = a.Q->rows(), s.d = a.Q->cols(), s.dv = a.V->cols(), s.scale = a.scale, s.mod = a.score_mod;
    cuda::vertical_slash_attention(*m_ctx, s, *a.columns, *a.offsets, a.Q->data(), a.K->data(), a.V->data(),
                                   a.O->data(), a.lse ? a.lse->data() : nullptr);
}

// LSH: hashing (cuBLAS projections, bucket kernel, CUB radix sort), the chunked attention of the sorted rounds
// (core/backend/cuda/lsh_attention.cuh) and the round combination, all on the GPU.
void CudaBackend::lsh_hash(const LshHashArgs& a) {
    validate_lsh_hash(a);
    const int H = a.X->heads(), n = a.X->rows();
    a.buckets->assign(size_t(a.rounds) * H * n, 0);
    a.perm->assign(size_t(a.rounds) * H * n, 0);
    cuda::lsh_hash(*m_ctx, a.X->data(), H, n, a.X->cols(), a.n_buckets > 1 ? a.rotations->data() : nullptr, a.rounds,
                   a.n_buckets, a.buckets->data(), a.perm->data());
}
void CudaBackend::lsh_attention(const LshAttentionArgs& a) {
    validate_lsh_attention(a);
    cuda::LshAttentionShape s;
    s.H = a.Q->heads(), s.n = a.Q->rows(), s.d = a.Q->cols(), s.dv = a.V->cols();
    s.rounds = a.rounds, s.chunk_len = a.chunk_len, s.look_back = a.look_back;
    s.scale = a.scale, s.causal = a.causal, s.self_mask = a.self_mask;
    // The same vector for both orders means shared QK: the kernel then uploads and maps one order.
    const int* perm_k = a.perm_k == a.perm_q ? a.perm_q->data() : a.perm_k->data();
    cuda::lsh_attention(*m_ctx, s, a.Q->data(), a.K->data(), a.V->data(), a.perm_q->data(), perm_k,
                        a.O_rounds ? a.O_rounds->data() : nullptr, a.lse_rounds->data(), a.O ? a.O->data() : nullptr);
}
void CudaBackend::lsh_combine(const LshCombineArgs& a) {
    validate_lsh_combine(a);
    const int R = a.O_rounds->heads(), H = a.O->heads(), n = a.O->rows(), dv = a.O->cols();
    cuda::lsh_combine(*m_ctx, a.O_rounds->data(), a.lse_rounds->data(), R, H, n, dv, a.O->data(),
                      a.lse ? a.lse->data() : nullptr);
}

// Feature maps (core/backend/cuda/feature_maps.cuh, FAVOR projections through cuBLAS), linear attention (cuBLAS,
// causal by a chunked prefix scan: core/backend/cuda/linear_attention.cuh) and the 2-D FFT (cuFFT +
// core/backend/cuda/fft.cuh); the per-element math is core/backend/shared/feature_maps.h, which the CPU calls too.
namespace {

/// The kernel call of a (validated) feature map into `cols` columns.
cuda::FeatureMapCall feature_map_call(const FeatureMapArgs& a, int cols) {
    cuda::FeatureMapCall call;
    call.H = a.X->heads(), call.n = a.X->rows(), call.d = a.X->cols(), call.cols = cols;
    const bool favor = is_favor(a.map);
    call.m = favor ? a.omega->rows() : 0, call.omega_heads = favor ? a.omega->heads() : 1;
    // FeatureMap and cuda::FeatureMapKernel list the maps in the same order (the FAVOR kinds first).
    call.kind = static_cast<cuda::FeatureMapKernel>(static_cast<int>(a.map));
    call.x_scale = a.x_scale, call.add = a.add, call.is_query = a.is_query, call.prepend_one = a.prepend_one;
    return call;
}

/// ω of a feature map on the host, or nullptr for the maps without random features.
const float* omega_of(const FeatureMapArgs& a) { return is_favor(a.map) ? a.omega->data() : nullptr; }

/// The kernel shape of (validated) linear-attention options over φ(Q) (H, n, f) and φ(K) (H, m, f).
cuda::LinearAttentionShape linear_shape(const LinearAttentionArgs& a, int H, int n, int m, int f) {
    cuda::LinearAttentionShape s;
    s.H = H, s.n = n, s.m = m, s.f = f, s.dv = a.V->cols();
    s.causal = a.causal, s.normalise = a.normalise, s.d_eps = a.d_eps, s.z_eps = a.z_eps;
    s.z_eps_first = a.z_eps_first, s.chunk = a.chunk;
    return s;
}

}  // namespace

void CudaBackend::feature_map(const FeatureMapArgs& a) {
    validate_feature_map(a);
    cuda::feature_map(*m_ctx, feature_map_call(a, a.out->cols()), a.X->data(), omega_of(a), a.out->data());
}

void CudaBackend::linear_attention(const LinearAttentionArgs& a) {
    validate_linear_attention(a);
    const cuda::LinearAttentionShape s =
        linear_shape(a, a.phi_Q->heads(), a.phi_Q->rows(), a.phi_K->rows(), a.phi_Q->cols());
    cuda::linear_attention(*m_ctx, s, a.phi_Q->data(), a.phi_K->data(), a.V->data(), a.O->data(),
                           a.denom ? a.denom->data() : nullptr);
}

void CudaBackend::kernel_attention(const KernelAttentionArgs& a) {
    const int f = validate_kernel_attention(a);
    const LinearAttentionArgs& la = a.attention;
    const cuda::LinearAttentionShape s = linear_shape(la, a.q_map.X->heads(), a.q_map.X->rows(), a.k_map.X->rows(), f);
    cuda::kernel_attention(*m_ctx, feature_map_call(a.q_map, f), feature_map_call(a.k_map, f), a.q_map.X->data(),
                           a.k_map.X->data(), omega_of(a.q_map), omega_of(a.k_map), s, la.V->data(), la.O->data(),
                           la.denom ? la.denom->data() : nullptr);
}

void CudaBackend::fft2_real(const Tensor3& X, Tensor3& Y) {
    validate_fft2_real(X);
    const int H = X.heads(), n = X.rows(), c = X.cols();
    Y = Tensor3(H, n, c);
    cuda::fft2_real(*m_ctx, X.data(), H, n, c, Y.data());
}

// cuSOLVER: batched Jacobi for heads of at most 32×32, gesvd per head otherwise; randomized top-k with the CPU's
// sketch Ω drawn on the device (core/backend/cuda/svd.cu).
void CudaBackend::singular_values(const SingularValuesArgs& a) {
    const int k = validate_singular_values(a);
    const Tensor3& M = *a.M;
    const int first = a.head < 0 ? 0 : a.head, heads = a.head < 0 ? M.heads() : 1;
    a.S->assign(size_t(heads) * k, 0.0);
    cuda::SvdRequest q;
    q.top_k = a.top_k, q.seed = a.seed, q.oversample = a.oversample, q.power_iterations = a.power_iterations;
    cuda::singular_values(*m_ctx, M.data() + int64_t(first) * M.rows() * M.cols(), heads, M.rows(), M.cols(), q,
                          a.S->data());
}

ResidentGemmSample CudaBackend::time_resident_gemm(int size, GemmPrecision precision, Tensor3* result) {
    if (!m_resident_gemm) m_resident_gemm = cuda::make_resident_gemm();
    const bool keep = result && size >= 16;  // a smaller size is refused below, with its reason
    if (keep) *result = Tensor3(1, size, size);
    return cuda::time_resident_gemm(*m_ctx, *m_resident_gemm, size, precision, keep ? result->data() : nullptr);
}

MeasuredCudaBackend::MeasuredCudaBackend() : m_events(cuda::make_event_pair()) {}

template <class F>
void MeasuredCudaBackend::timed(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    cuda::record_start(context(), *m_events);
    f();
    cuda::CopyTime copies;
    m_ms_total += cuda::record_stop(context(), *m_events, &copies);
    m_copy_ms_total += copies.ms, m_copy_bytes_total += copies.bytes;
    m_call_wall_ms_total += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Each primitive of the list: CudaBackend's, timed.
#define ATTNSCOPE_TIMED_PRIMITIVE(name, params, args) \
    void MeasuredCudaBackend::name params { timed([&] { CudaBackend::name args; }); }
ATTNSCOPE_BACKEND_PRIMITIVES(ATTNSCOPE_TIMED_PRIMITIVE)
#undef ATTNSCOPE_TIMED_PRIMITIVE

void MeasuredCudaBackend::kernel_attention(const KernelAttentionArgs& args) {
    timed([&] { CudaBackend::kernel_attention(args); });
}

DeviceClock MeasuredCudaBackend::device_clock() const {
    DeviceClock c;
    c.ms_total = m_ms_total;
    c.call_wall_ms_total = m_call_wall_ms_total;
    c.copy_ms_total = m_copy_ms_total;
    c.copy_bytes_total = m_copy_bytes_total;
    c.live_bytes = cuda::device_bytes_live();
    c.peak_bytes = cuda::device_bytes_peak();
    return c;
}
void MeasuredCudaBackend::set_device_peak(int64_t bytes) { cuda::set_device_peak(bytes); }
int64_t MeasuredCudaBackend::device_free_bytes() const { return cuda::device_free_bytes(); }

}  // namespace attnscope
