// attnscope — vertical-slash attention on CUDA: builds the kernel's plan on the host (vertical_slash_kernel_plan: the
// diagonals parted into runs and isolated ones, the key ranges of every block of kFlashBr query rows, the per-head line
// flags; O(heads · blocks · lines)), uploads it with Q, K, V, launches the kernel of vertical_slash_attention.cuh and
// downloads O and lse.
#include <string>

#include "core/backend/cuda/vertical_slash_attention.cuh"
#include "core/backend/interface/vertical_slash_layout.h"

namespace attnscope::cuda {

namespace {

template <int D, int BC, bool kSliced>
void launch_vertical_slash_bucket(cudaStream_t stream, const VerticalSlashParams& p, int H) {
    constexpr int smem_bytes = vertical_slash_smem_floats(D, BC) * int(sizeof(float));
    allow_dynamic_smem(vertical_slash_attention_kernel<D, BC, kSliced>, smem_bytes,
                       "the vertical-slash kernel for head dim " + std::to_string(D), "use --backend cpu");
    const dim3 grid(unsigned(ceil_div(p.n, kFlashBr)), unsigned(H), unsigned(attention_output_slices(kSliced, p.dv)));
    vertical_slash_attention_kernel<D, BC, kSliced><<<grid, kFlashThreads, smem_bytes, stream>>>(p);
    ATTNSCOPE_CHECK_LAUNCH("vertical_slash_attention_kernel");
}

}  // namespace

void launch_vertical_slash_attention(cudaStream_t stream, const VerticalSlashParams& p, int H) {
    if (H == 0 || p.n == 0) return;
    if (H > 65535)
        throw Error("the CUDA vertical-slash kernel takes at most 65535 heads per call (got " + std::to_string(H) + ")");
    if (attention_output_slices(true, p.dv) > 65535)
        throw Error("the CUDA vertical-slash kernel takes value dims up to " + std::to_string(65535 * kMaxFlashHeadDim) +
                    " (got " + std::to_string(p.dv) + "): use --backend cpu");
    const int dim = p.d > p.dv ? p.d : p.dv;
    with_attention_bucket(dim, [&]<int D, int BC, bool kSliced>() { launch_vertical_slash_bucket<D, BC, kSliced>(stream, p, H); });
}

void vertical_slash_attention(Context& ctx, const VerticalSlashShape& s, const std::vector<std::vector<int>>& columns,
                              const std::vector<std::vector<int>>& offsets, const float* Q, const float* K,
                              const float* V, float* O, float* lse) {
    if (s.H == 0 || s.n == 0) return;
    const VerticalSlashKernelPlan plan = vertical_slash_kernel_plan(s.n, kFlashBr, columns, offsets, kVerticalSlashMinRun);
    const VerticalSlashRanges& ranges = plan.ranges;
    const size_t q = size_t(s.H) * s.n * s.d, v = size_t(s.H) * s.n * s.dv, l = lse ? size_t(s.H) * s.n : 0;
    const size_t plan_ints = ranges.ptr.size() + 2 * ranges.start.size() + plan.isolated_ptr.size() + plan.isolated.size();
    const size_t plan_bytes = plan_ints * sizeof(int) + plan.is_column.size() + plan.is_run.size();
    require_device_memory((2 * q + 2 * v + l) * sizeof(float) + plan_bytes,
                          "vertical-slash attention (H = " + std::to_string(s.H) + ", n = " + std::to_string(s.n) + ")");
    const DeviceInput dQ = upload_input(ctx, Q, q, "Q"), dK = upload_input(ctx, K, q, "K"), dV = upload_input(ctx, V, v, "V");
    const DeviceBuffer<int> dPtr = upload_array(ctx, ranges.ptr.data(), ranges.ptr.size(), "key range index");
    const DeviceBuffer<int> dStart = upload_array(ctx, ranges.start.data(), ranges.start.size(), "key range starts");
    const DeviceBuffer<int> dLength = upload_array(ctx, ranges.length.data(), ranges.length.size(), "key range lengths");
    const DeviceBuffer<uint8_t> dColumn = upload_array(ctx, plan.is_column.data(), plan.is_column.size(), "kept columns");
    const DeviceBuffer<uint8_t> dRun = upload_array(ctx, plan.is_run.data(), plan.is_run.size(), "run diagonals");
    const DeviceBuffer<int> dIsoPtr = upload_array(ctx, plan.isolated_ptr.data(), plan.isolated_ptr.size(), "isolated index");
    const DeviceBuffer<int> dIso = upload_array(ctx, plan.isolated.data(), plan.isolated.size(), "isolated diagonals");
    DeviceBuffer<float> dO(v, "O"), dL(l, "lse");
    VerticalSlashParams p{};
    p.Q = dQ.get(), p.K = dK.get(), p.V = dV.get(), p.O = dO.get(), p.lse = lse ? dL.get() : nullptr;
    p.range_ptr = dPtr.get(), p.range_start = dStart.get(), p.range_length = dLength.get();
    p.is_column = dColumn.get(), p.is_run = dRun.get(), p.isolated_ptr = dIsoPtr.get(), p.isolated = dIso.get();
    p.n = s.n, p.d = s.d, p.dv = s.dv, p.scale = s.scale, p.mod = s.mod;
    launch_vertical_slash_attention(ctx.stream(), p, s.H);
    download(ctx, dO.get(), O, v);
    if (lse) download(ctx, dL.get(), lse, l);
}

}  // namespace attnscope::cuda
