// attnscope — `fnet` (Lee-Thorp et al. 2021): token mixing without attention.
// Y = Re(FFT_seq(FFT_hidden(X))) — the real part of the 2-D DFT, unnormalised, as in the paper. X is the
// layer input (Heads::X, (1, n, hidden)) when the input has one (text), else V per head (synthetic).
// With F_n = C_n − i·S_n (C_n = cos(2πij/n), S_n = sin(2πij/n)) and A + iB = X·F_d (the hidden-axis DFT):
//   Y = Re(F_n·(A + iB)) = C_n·A + S_n·B,
// so the sequence mixing is the pair (C_n, S_n), not C_n alone (C_n·A alone misses half the signal). P̃ is C_n and
// the display matrix S_n (Structure::display_matrices) is the other half; both are signed and unnormalised (normalised = false), so the KLs
// never apply. FNet replaces attention (ExactModel::Different): its errors against softmax attention measure a
// different model; on text the embedding cosine (what-if) is the meaningful comparison.
#include <omp.h>

#include <cmath>
#include <numbers>

#include "core/backend/interface/backend.h"
#include "core/variants/registry.h"

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
        m_info = {
            .id = "fnet",
            .name = "FNet (Fourier mixing)",
            .paper = "Lee-Thorp et al. 2021",
            .summary = "Y = Re(F_n·X·F_d) = C_n·Re(X·F_d) + S_n·Im(X·F_d): Fourier mixing instead of attention; X = the "
                  "layer input (text) or V (synthetic)",
            .params = {},
            .normalised = false,
            .short_name = "FNet",
            .key_params = {},
            .signed_matrix = true,
            .budget_param = ""};
    }
    /// For the V path (synthetic inputs, what benchmarks run): Y (H, n, dv) and cpu_fft2_real's per-thread
    /// complex half spectrum (n, 2·(dv/2 + 1)).
    int64_t estimate_peak_bytes(int heads, int n, int, int dv, const Params&) const override {
        const int64_t threads = omp_get_max_threads();
        return int64_t(sizeof(float)) * n * (int64_t(heads) * dv + threads * 2 * (dv / 2 + 1));
    }
    /// Fourier mixing replaces attention: there is no softmax model it approximates.
    ExactModel exact_model(const Params&) const override { return ExactModel::Different; }
    /// For the V path, like estimate_peak_bytes (text input mixes the layer input X of `hidden` columns instead).
    double estimate_flops(int heads, int n, int, int dv, const Params&) const override {
        return fft2_flops(heads, n, dv);
    }
    std::unique_ptr<Execution> execute(const Plan&, const Heads& h, Backend& backend) const override {
        const bool use_x = !h.X.empty();
        if (use_x && h.X.rows() != h.n())
            throw Error("fnet: the layer input X has " + std::to_string(h.X.rows()) + " rows but n = " +
                        std::to_string(h.n()) + ": give X with one row per position");
        const Tensor3& X = use_x ? h.X : h.V;
        auto e = std::make_unique<Execution>();
        backend.fft2_real(X, e->O);
        const double cells = double(X.rows()) * X.cols();
        e->flops = fft2_flops(X.heads(), X.rows(), X.cols());
        e->bytes = 4.0 * X.heads() * cells * 3.0;  // X in, half spectrum (complex), Y out
        e->structure.notes.push_back(use_x ? "mixes the layer input X (1, n, hidden), not Q/K/V"
                                           : "mixes V per head (this input has no layer input X)");
        e->structure.notes.push_back(
            "FNet replaces attention: Y = C_n·Re(X·F_d) + S_n·Im(X·F_d), two fixed mixing matrices (P_eff shows C_n, "
            "the S_n panel the other half); errors against softmax attention are a different model's");
        return e;
    }
    void explain(const Plan&, Execution& e, const Heads& h, int max_matrix_n, Backend&) const override {
        const int n = h.n();
        if (n > max_matrix_n) return;
        Tensor3 C(e.O.heads(), n, n), S(e.O.heads(), n, n);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                // (i·j) mod n keeps the angle exact for large n.
                const double angle = 2.0 * std::numbers::pi * double((int64_t(i) * j) % n) / n;
                C.at(0, i, j) = static_cast<float>(std::cos(angle));
                S.at(0, i, j) = static_cast<float>(std::sin(angle));
            }
        for (int hh = 1; hh < C.heads(); ++hh) C.head(hh) = C.head(0), S.head(hh) = S.head(0);
        e.P_eff = std::move(C);
        e.structure.matrix_title = "C_n = cos(2πij/n): real part of the DFT";
        e.structure.display_matrices.push_back({"S_n = sin(2πij/n): imaginary part of the DFT", std::move(S)});
    }
};

}  // namespace

void add_fnet_variants(std::vector<std::unique_ptr<Variant>>& out) { out.push_back(std::make_unique<FnetVariant>()); }

}  // namespace attnscope
