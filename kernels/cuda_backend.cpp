// attnscope — CudaBackend: checks shapes on the host (same messages as the CPU backend), then routes each
// primitive to its family in kernels/*.cu through the host-pointer entries of cuda_primitives.h.
#include "cuda_backend.h"

#include <algorithm>

#include "core/primitives/cpu_primitives.h"

namespace attnscope {

std::string cuda_probe_device() { return cuda::probe_device(); }

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

CudaBackend::CudaBackend() {
    const std::string why = cuda::probe_device();
    if (!why.empty()) throw Error("the CUDA backend is not available: " + why + "; use --backend cpu");
    m_ctx = cuda::make_context();
    m_description = cuda::device_description();
}

std::string CudaBackend::description() const { return m_description; }

void CudaBackend::gemm(const Tensor3& A, bool ta, const Tensor3& B, bool tb, float alpha, float beta, Tensor3& C) {
    const int H = C.heads();
    if ((A.heads() != H && A.heads() != 1) || (B.heads() != H && B.heads() != 1))
        throw Error("gemm: A " + A.shape_string() + " and B " + B.shape_string() + " must have " + std::to_string(H) +
                    " heads (or 1, broadcast) like C " + C.shape_string());
    const int r = ta ? A.cols() : A.rows(), k = ta ? A.rows() : A.cols();
    const int kb = tb ? B.cols() : B.rows(), c = tb ? B.rows() : B.cols();
    if (k != kb || r != C.rows() || c != C.cols())
        throw Error("gemm: op(A) is " + std::to_string(r) + "×" + std::to_string(k) + ", op(B) is " + std::to_string(kb) +
                    "×" + std::to_string(c) + " and C is " + C.shape_string() + ": inner or outer sizes differ");
    cuda::gemm(*m_ctx, {A.data(), A.heads(), A.rows(), A.cols()}, ta, {B.data(), B.heads(), B.rows(), B.cols()}, tb,
               alpha, beta, C.data(), H, r, c);
}

void CudaBackend::dense_attention(const DenseAttentionArgs& a) {
    validate_dense_attention(a);
    cuda::AttentionShape s;
    s.H = a.Q->heads(), s.n = a.Q->rows(), s.m = a.K->rows(), s.d = a.Q->cols(), s.dv = a.V->cols();
    s.scale = a.scale, s.causal = a.causal;
    float* lse = a.lse ? a.lse->data() : nullptr;
    if (a.P)
        cuda::materialised_attention(*m_ctx, s, a.Q->data(), a.K->data(), a.V->data(), a.O->data(), lse, a.P->data());
    else
        cuda::flash_attention(*m_ctx, s, a.Q->data(), a.K->data(), a.V->data(), a.O->data(), lse);
}

void CudaBackend::pooled_view(const Tensor3& M, int size, PoolMode mode, Tensor3& out) {
    if (size < 1) throw Error("pooled view size must be at least 1");
    const int sr = std::min(M.rows(), size), sc = std::min(M.cols(), size);
    out = Tensor3(M.heads(), sr, sc);
    cuda::pooled_view(*m_ctx, M.data(), M.heads(), M.rows(), M.cols(), sr, sc, mode, out.data());
}

// [SECTION] block-sparse
void CudaBackend::block_sparse_attention(const BlockSparseAttentionArgs& args) {
    // Interim: the CPU implementation (same results, CPU speed) until the block-sparse kernel exists.
    cpu_block_sparse_attention(args);
}
// [SECTION] end block-sparse

// [SECTION] lsh — HOST FALLBACK until the hashing / chunked-attention kernels exist.
void CudaBackend::lsh_hash(const LshHashArgs& args) { cpu_lsh_hash(args); }
void CudaBackend::lsh_attention(const LshAttentionArgs& args) { cpu_lsh_attention(args); }
void CudaBackend::lsh_combine(const LshCombineArgs& args) { cpu_lsh_combine(args); }
// [SECTION] end lsh
// [SECTION] kernels: feature maps, linear attention, FFT
// HOST FALLBACK: the CPU implementations until the kernels exist (feature_maps.h holds the math they will share).
void CudaBackend::feature_map(const FeatureMapArgs& args) { cpu_feature_map(args); }
void CudaBackend::linear_attention(const LinearAttentionArgs& args) { cpu_linear_attention(args); }
void CudaBackend::fft2_real(const Tensor3& X, Tensor3& Y) { cpu_fft2_real(X, Y); }
// [SECTION] end kernels

}  // namespace attnscope
