// attnscope — LSH on CUDA: hashing (cuBLAS x·R for every round, bucket argmax kernel, one CUB radix sort of
// the segmented keys ((round, head), bucket, position), positions back out) and the round combination.
// The chunked attention of the sorted rounds still runs on the host (CudaBackend::lsh_attention).
#include <cub/device/device_radix_sort.cuh>

#include <string>

#include "core/backend/cuda/gemm.cuh"
#include "core/backend/cuda/lsh.cuh"

namespace attnscope::cuda {

namespace {

/// Bits needed to hold every value below `bound` (at least 1).
int bits_below(uint64_t bound) {
    int bits = 1;
    while (bits < 64 && (uint64_t(1) << bits) < bound) ++bits;
    return bits;
}

}  // namespace

void lsh_hash(Context& ctx, const float* X, int H, int n, int d, const float* rotations, int R, int n_buckets,
              int* buckets, int* perm) {
    const int64_t total = int64_t(R) * H * n;
    if (total == 0) return;
    if (total > int64_t(INT32_MAX))
        throw Error("lsh_hash on CUDA takes at most 2^31 − 1 (round, head, position) triples (got " +
                    std::to_string(total) + "): use --backend cpu");
    const int half = n_buckets / 2;
    const size_t x_count = size_t(H) * n * d, rot_count = size_t(R) * d * half, xr_count = size_t(total) * half;
    size_t sort_bytes = 0;
    ATTNSCOPE_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, static_cast<const uint64_t*>(nullptr),
                                                        static_cast<uint64_t*>(nullptr), total, 0, 64, ctx.stream()));
    require_device_memory((x_count + rot_count + xr_count) * sizeof(float) + size_t(total) * (2 * sizeof(int) +
                              2 * sizeof(uint64_t)) + sort_bytes,
                          "LSH hashing (R = " + std::to_string(R) + ", H = " + std::to_string(H) + ", n = " +
                              std::to_string(n) + ", " + std::to_string(n_buckets) + " buckets)");
    DeviceBuffer<float> dXR;
    if (n_buckets > 1) {
        const DeviceInput dX = upload_input(ctx, X, x_count, "X"), dRot = upload_input(ctx, rotations, rot_count, "rotations");
        dXR = DeviceBuffer<float>(xr_count, "projections x·R");
        // XR_r = X (H·n, d) · R_r (d, nb/2) for every round r: X broadcast over the rounds.
        gemm_device(ctx, {dX.get(), 1, H * n, d}, false, {dRot.get(), R, d, half}, false, 1.0f, 0.0f, dXR.get(), R,
                    H * n, half);
    }
    DeviceBuffer<int> dBuckets(size_t(total), "LSH buckets"), dPerm(size_t(total), "LSH permutation");
    DeviceBuffer<uint64_t> dKeys(size_t(total), "LSH sort keys"), dSorted(size_t(total), "LSH sorted keys");
    const unsigned blocks = unsigned(ceil_div(total, kLshThreads));
    lsh_bucket_kernel<<<blocks, kLshThreads, 0, ctx.stream()>>>(dXR.get(), total, n, n_buckets, dBuckets.get(),
                                                                dKeys.get());
    ATTNSCOPE_CHECK_LAUNCH("lsh_bucket_kernel");
    const int end_bit = bits_below(uint64_t(R) * H * uint64_t(n_buckets) * uint64_t(n));
    DeviceBuffer<unsigned char> dTemp(sort_bytes, "radix sort scratch");
    ATTNSCOPE_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(dTemp.get(), sort_bytes, dKeys.get(), dSorted.get(), total, 0,
                                                        end_bit, ctx.stream()));
    lsh_perm_kernel<<<blocks, kLshThreads, 0, ctx.stream()>>>(dSorted.get(), total, n, dPerm.get());
    ATTNSCOPE_CHECK_LAUNCH("lsh_perm_kernel");
    copy_to_host(ctx, buckets, dBuckets.get(), size_t(total) * sizeof(int));
    copy_to_host(ctx, perm, dPerm.get(), size_t(total) * sizeof(int));
}

void launch_lsh_combine(cudaStream_t stream, const float* O_rounds, const float* lse_rounds, int R, int64_t rows, int dv,
                        float* O, float* lse) {
    lsh_combine_kernel<<<unsigned(ceil_div(rows * (dv > 0 ? dv : 1), kLshThreads)), kLshThreads, 0, stream>>>(
        O_rounds, lse_rounds, R, rows, dv, O, lse);
    ATTNSCOPE_CHECK_LAUNCH("lsh_combine_kernel");
}

void lsh_combine(Context& ctx, const float* O_rounds, const float* lse_rounds, int R, int H, int n, int dv, float* O,
                 float* lse) {
    const int64_t rows = int64_t(H) * n;
    if (rows == 0) return;
    const size_t o_rounds = size_t(R) * rows * dv, l_rounds = size_t(R) * rows, o = size_t(rows) * dv;
    require_device_memory((o_rounds + l_rounds + o + (lse ? rows : 0)) * sizeof(float),
                          "LSH round combination (R = " + std::to_string(R) + ", H·n = " + std::to_string(rows) + ")");
    DeviceBuffer<float> dOR = upload(ctx, O_rounds, o_rounds, "O_rounds"), dLR = upload(ctx, lse_rounds, l_rounds, "lse_rounds");
    DeviceBuffer<float> dO(o, "O"), dL(lse ? size_t(rows) : 0, "lse");
    launch_lsh_combine(ctx.stream(), dOR.get(), dLR.get(), R, rows, dv, dO.get(), lse ? dL.get() : nullptr);
    download(ctx, dO.get(), O, o);
    if (lse) download(ctx, dL.get(), lse, size_t(rows));
}

}  // namespace attnscope::cuda
