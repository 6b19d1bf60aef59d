// attnscope — fft2_real on CUDA: one cuFFT plan per call (batched 2-D r2c over the heads), then the
// Hermitian expansion kernel of fft.cuh.
#include <cufft.h>

#include <string>

#include "core/backend/cuda/fft.cuh"

namespace attnscope::cuda {

namespace {

void check_cufft(cufftResult status, const char* what) {
    if (status != CUFFT_SUCCESS)
        throw Error(std::string("cuFFT ") + what + " failed (cufftResult " + std::to_string(int(status)) +
                    "): use --backend cpu");
}

/// Owns a cuFFT plan.
struct FftPlan {
    cufftHandle handle = 0;
    bool made = false;
    ~FftPlan() {
        if (made) (void)cufftDestroy(handle);
    }
};

}  // namespace

void fft2_real(Context& ctx, const float* X, int H, int n, int c, float* Y) {
    const int half = c / 2 + 1;
    const size_t x_count = size_t(H) * n * c, spec_floats = size_t(H) * n * half * 2;
    require_device_memory((2 * x_count + spec_floats) * sizeof(float),
                          "the 2-D FFT of " + std::to_string(H) + " heads of " + std::to_string(n) + "×" +
                              std::to_string(c));
    DeviceBuffer<float> dX = upload(ctx, X, x_count, "X"), dSpec(spec_floats, "half spectrum"), dY(x_count, "Y");
    FftPlan plan;
    int dims[2] = {n, c};
    check_cufft(cufftCreate(&plan.handle), "creating a plan");
    plan.made = true;
    // The work area comes from the tracked allocator (the device peak of a run counts it), not from cuFFT.
    check_cufft(cufftSetAutoAllocation(plan.handle, 0), "turning off its own work-area allocation");
    size_t work_bytes = 0;
    check_cufft(cufftMakePlanMany(plan.handle, 2, dims, nullptr, 1, n * c, nullptr, 1, n * half, CUFFT_R2C, H,
                                  &work_bytes),
                "planning");
    DeviceBuffer<unsigned char> work(work_bytes, "cuFFT work area");
    if (work_bytes) check_cufft(cufftSetWorkArea(plan.handle, work.get()), "setting the work area");
    check_cufft(cufftSetStream(plan.handle, ctx.stream()), "binding the stream");
    check_cufft(cufftExecR2C(plan.handle, dX.get(), reinterpret_cast<cufftComplex*>(dSpec.get())), "r2c");
    fft_real_part_kernel<<<unsigned(ceil_div(int64_t(x_count), kFftThreads)), kFftThreads, 0, ctx.stream()>>>(
        dSpec.get(), H, n, c, dY.get());
    ATTNSCOPE_CHECK_LAUNCH("fft_real_part_kernel");
    download(ctx, dY.get(), Y, x_count);
}

}  // namespace attnscope::cuda
