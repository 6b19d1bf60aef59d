// attnscope — the device's GEMM roof: a size×size product on operands that stay on the device, timed by a CUDA
// event pair around the cublasGemmEx call alone, so neither copies nor allocations count (what RoofGemm pairs with
// every benchmark run on a device; the host-tensor gemm of gemm.cu, copies included, is reported beside it).
#include <cuda_bf16.h>

#include <chrono>

#include "core/backend/cuda/common.cuh"

namespace attnscope::cuda {

class ResidentGemm {
public:
    int size = 0;
    DeviceBuffer<float> a, b, c;                 // fp32 operands and the result
    DeviceBuffer<__nv_bfloat16> a_bf16, b_bf16;  // the operands rounded to bf16 (made on the first bf16 call)
    EventPairPtr events = make_event_pair();
};

void ResidentGemmDeleter::operator()(ResidentGemm* roof) const noexcept { delete roof; }

ResidentGemmPtr make_resident_gemm() { return ResidentGemmPtr(new ResidentGemm()); }

namespace {

/// x[k] = resident_gemm_operand(which, k) for k < count.
__global__ void fill_operand_kernel(float* x, int64_t count, int which) {
    const int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < count) x[k] = resident_gemm_operand(which, k);
}

/// y[k] = bf16(x[k]) (round to nearest even).
__global__ void to_bf16_kernel(const float* x, __nv_bfloat16* y, int64_t count) {
    const int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < count) y[k] = __float2bfloat16(x[k]);
}

constexpr int kThreads = 256;

/// Makes the fp32 operands and the result of a new size (the old buffers are freed first), untimed.
void make_operands(Context& ctx, ResidentGemm& roof, int size) {
    const int64_t count = int64_t(size) * size;
    roof.a = {}, roof.b = {}, roof.c = {}, roof.a_bf16 = {}, roof.b_bf16 = {};
    roof.a = DeviceBuffer<float>(size_t(count), "GEMM roof operand A");
    roof.b = DeviceBuffer<float>(size_t(count), "GEMM roof operand B");
    roof.c = DeviceBuffer<float>(size_t(count), "GEMM roof result C");
    const unsigned blocks = unsigned(ceil_div(count, kThreads));
    fill_operand_kernel<<<blocks, kThreads, 0, ctx.stream()>>>(roof.a.get(), count, 0);
    ATTNSCOPE_CHECK_LAUNCH("fill_operand_kernel");
    fill_operand_kernel<<<blocks, kThreads, 0, ctx.stream()>>>(roof.b.get(), count, 1);
    ATTNSCOPE_CHECK_LAUNCH("fill_operand_kernel");
    roof.size = size;
}

/// The bf16 copies of the operands, made once per size.
void make_bf16_operands(Context& ctx, ResidentGemm& roof) {
    if (roof.a_bf16.get()) return;
    const int64_t count = int64_t(roof.size) * roof.size;
    roof.a_bf16 = DeviceBuffer<__nv_bfloat16>(size_t(count), "GEMM roof operand A (bf16)");
    roof.b_bf16 = DeviceBuffer<__nv_bfloat16>(size_t(count), "GEMM roof operand B (bf16)");
    const unsigned blocks = unsigned(ceil_div(count, kThreads));
    to_bf16_kernel<<<blocks, kThreads, 0, ctx.stream()>>>(roof.a.get(), roof.a_bf16.get(), count);
    ATTNSCOPE_CHECK_LAUNCH("to_bf16_kernel");
    to_bf16_kernel<<<blocks, kThreads, 0, ctx.stream()>>>(roof.b.get(), roof.b_bf16.get(), count);
    ATTNSCOPE_CHECK_LAUNCH("to_bf16_kernel");
}

/// Row-major C = A·B as cuBLAS's column-major Cᵀ = Bᵀ·Aᵀ: the row-major buffers read column-major are the
/// transposes, so B goes first.
void gemm_ex(Context& ctx, ResidentGemm& roof, GemmPrecision precision) {
    const int n = roof.size;
    const float alpha = 1.0f, beta = 0.0f;
    const bool bf16 = precision == GemmPrecision::Bf16;
    const void* first = bf16 ? static_cast<const void*>(roof.b_bf16.get()) : roof.b.get();
    const void* second = bf16 ? static_cast<const void*>(roof.a_bf16.get()) : roof.a.get();
    const cudaDataType_t in = bf16 ? CUDA_R_16BF : CUDA_R_32F;
    const cublasComputeType_t compute =
        precision == GemmPrecision::Tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    ATTNSCOPE_CUBLAS_CHECK(cublasGemmEx(ctx.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, first, in, n, second,
                                        in, n, &beta, roof.c.get(), CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT));
}

}  // namespace

ResidentGemmSample time_resident_gemm(Context& ctx, ResidentGemm& roof, int size, GemmPrecision precision,
                                      float* c_host) {
    if (size < 16) throw Error("GEMM size " + std::to_string(size) + " is too small to measure a rate: use ≥ 16");
    const size_t count = size_t(size) * size;
    require_device_memory((size != roof.size ? 3 * count * sizeof(float) : 0) +
                              (precision == GemmPrecision::Bf16 ? count * sizeof(__nv_bfloat16) * 2 : 0),
                          "the GEMM roof of " + std::to_string(size) + "×" + std::to_string(size));
    if (size != roof.size) make_operands(ctx, roof, size);
    if (precision == GemmPrecision::Bf16) make_bf16_operands(ctx, roof);
    ctx.synchronize("making the GEMM roof's operands");
    ResidentGemmSample s;
    const auto t0 = std::chrono::steady_clock::now();
    record_start(ctx, *roof.events);
    gemm_ex(ctx, roof, precision);
    s.device_ms = record_stop(ctx, *roof.events);
    s.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (c_host) download(ctx, roof.c.get(), c_host, count);
    return s;
}

}  // namespace attnscope::cuda
