// attnscope — `fnet` (Lee-Thorp et al. 2021): token mixing without attention.
// Y = Re(FFT_seq(FFT_hidden(X))) — the real part of the 2-D DFT, unnormalised, as in the paper. X is the
// layer input (Heads::X, (1, n, hidden)) when the input has one (text), else V per head (synthetic).
// P̃ = Re(DFT_n) = cos(2πij/n), the sequence-mixing matrix: signed and unnormalised (normalised = false),
// so row_kl never applies. It is not an approximation of softmax attention: rel_err_out is only reported
// when Y has O_full's shape (X = V).
#include <omp.h>

#include <cmath>
#include <numbers>

#include "../backend/backend.h"
#include "../bench/cost_meter.h"
#include "registry.h"

namespace attnscope {

namespace {

/// Real-input 2-D FFT: about 2.5·N·log2 N flops for N = rows·cols points, per head.
double fft2_flops(int heads, int rows, int cols) {
    const double cells = double(rows) * cols;
    return heads * 2.5 * cells * std::log2(std::max(2.0, cells));
}

class FnetVariant : public Variant {
public:
    FnetVariant() {
        m_info = {"fnet", "FNet (Fourier mixing)", "Lee-Thorp et al. 2021",
                  "Y = Re(FFT_seq(FFT_hidden(X))), X = the layer input (text) or V (synthetic); no attention",
                  {},
                  false, false, true};
    }
    const VariantInfo& info() const override { return m_info; }
    Params resolve(const Params& params, const Shape&) const override { return params; }
    /// For the V path (synthetic inputs, what benchmarks run): Y (H, n, dv) and cpu_fft2_real's per-thread
    /// complex half spectrum (n, 2·(dv/2 + 1)).
    int64_t estimate_peak_bytes(int heads, int n, int, int dv, const Params&) const override {
        const int64_t threads = omp_get_max_threads();
        return int64_t(sizeof(float)) * n * (int64_t(heads) * dv + threads * 2 * (dv / 2 + 1));
    }
    /// For the V path, like estimate_peak_bytes (text input mixes the layer input X of `hidden` columns instead).
    double estimate_flops(int heads, int n, int, int dv, const Params&) const override {
        return fft2_flops(heads, n, dv);
    }
    RunResult run(const Heads& h, const Params& p, const RunOptions& options, Backend& backend) const override {
        RunResult r;
        r.variant = m_info.id;
        r.params = p;
        const bool use_x = !h.X.empty();
        if (use_x && h.X.rows() != h.n())
            throw Error("fnet: the layer input X has " + std::to_string(h.X.rows()) + " rows but n = " +
                        std::to_string(h.n()) + ": give X with one row per position");
        const Tensor3& X = use_x ? h.X : h.V;
        {
            CostMeter meter(backend);
            backend.fft2_real(X, r.O);
            meter.stop(r.cost);
        }
        const double cells = double(X.rows()) * X.cols();
        r.cost.flops = fft2_flops(X.heads(), X.rows(), X.cols());
        r.cost.bytes = 4.0 * X.heads() * cells * 3.0;  // X in, half spectrum (complex), Y out
        r.structure.notes.push_back(use_x ? "mixes the layer input X (1, n, hidden), not Q/K/V"
                                          : "mixes V per head (this input has no layer input X)");
        if (options.want_matrix && h.n() <= options.max_matrix_n) {
            const int n = h.n();
            Tensor3 P(r.O.heads(), n, n);
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    // (i·j) mod n keeps the angle exact for large n.
                    const double angle = 2.0 * std::numbers::pi * double((int64_t(i) * j) % n) / n;
                    P.at(0, i, j) = static_cast<float>(std::cos(angle));
                }
            for (int hh = 1; hh < P.heads(); ++hh) P.head(hh) = P.head(0);
            r.P_eff = std::move(P);
        }
        return r;
    }

private:
    VariantInfo m_info;
};

}  // namespace

void add_fnet_variants(std::vector<std::unique_ptr<Variant>>& out) { out.push_back(std::make_unique<FnetVariant>()); }

}  // namespace attnscope
