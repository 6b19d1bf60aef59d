// attnscope — the real part of the 2-D DFT on the CPU (FNet token mixing), with FFTW3 in single precision.
// One r2c plan per call (FFTW_ESTIMATE: no timing runs, so results do not depend on machine load) made under
// a process-wide lock, because FFTW's planner is not thread-safe; executing a plan on new arrays is, so
// heads run in parallel. FFTW_UNALIGNED lets a plan run on any head of a Tensor3 whatever its offset.
// A real input's spectrum is Hermitian, F[i][j] = conj(F[−i][−j]), so the columns FFTW leaves out of the
// half spectrum are mirrored from the ones it returns (the real part is the same).
#include <fftw3.h>
#include <omp.h>

#include <mutex>

#include "core/backend/cpu/cpu_primitives.h"

namespace attnscope {

namespace {

std::mutex& fftw_planner_mutex() {
    static std::mutex m;
    return m;
}

/// Owns an FFTW plan; destroyed under the planner lock (fftwf_destroy_plan touches planner state too).
struct PlanHandle {
    fftwf_plan plan = nullptr;
    ~PlanHandle() {
        if (!plan) return;
        std::lock_guard<std::mutex> lock(fftw_planner_mutex());
        fftwf_destroy_plan(plan);
    }
};

}  // namespace

void cpu_fft2_real(const Tensor3& X, Tensor3& Y) {
    const int H = X.heads(), n = X.rows(), c = X.cols();
    validate_fft2_real(X);
    Y = Tensor3(H, n, c);
    const int half = c / 2 + 1;
    const int threads = omp_get_max_threads();
    Tensor3 spectrum(threads, n, 2 * half);  // per-thread complex half spectrum, tracked like every buffer
    PlanHandle plan;
    {
        std::lock_guard<std::mutex> lock(fftw_planner_mutex());
        plan.plan = fftwf_plan_dft_r2c_2d(n, c, const_cast<float*>(X.head_data(0)),
                                          reinterpret_cast<fftwf_complex*>(spectrum.head_data(0)),
                                          FFTW_ESTIMATE | FFTW_UNALIGNED | FFTW_PRESERVE_INPUT);
    }
    if (!plan.plan) throw Error("FFTW could not plan a " + std::to_string(n) + "×" + std::to_string(c) + " transform");
#pragma omp parallel for schedule(dynamic)
    for (int h = 0; h < H; ++h) {
        float* spec = spectrum.head_data(omp_get_thread_num());
        fftwf_execute_dft_r2c(plan.plan, const_cast<float*>(X.head_data(h)), reinterpret_cast<fftwf_complex*>(spec));
        float* y = Y.head_data(h);
        for (int i = 0; i < n; ++i) {
            const int mirror_row = i == 0 ? 0 : n - i;
            for (int j = 0; j < c; ++j) {
                // Re F[i][j] for j < half; Re F[−i][c − j] otherwise (Hermitian symmetry).
                const int64_t at = j < half ? (int64_t(i) * half + j) : (int64_t(mirror_row) * half + (c - j));
                y[int64_t(i) * c + j] = spec[2 * at];
            }
        }
    }
}

}  // namespace attnscope
