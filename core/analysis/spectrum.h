// attnscope — singular-value spectra of attention matrices (Linformer Fig. 1): the singular values of P or of
// a variant's P̃ and their normalised cumulative sum, exact for n ≤ 2048 and a randomized top-k beyond.
#pragma once
#include <vector>

#include "core/tensor.h"

namespace attnscope {
class Backend;
}

namespace attnscope {

/// Singular values of one n×m matrix and their normalised cumulative sum.
struct Spectrum {
    std::vector<double> singular_values;  // descending; all min(n, m) when exact, the top k otherwise
    std::vector<double> cumulative;       // Σ_{l≤i} σ_l / Σ_l σ_l; randomized: normalised over the top k only
    bool exact = true;                    // LAPACK on the whole matrix (n ≤ 2048) or randomized top-k
};

/// Singular values of head h of M (n×m), descending; exact (LAPACK) for n ≤ 2048 else randomized top-k.
Spectrum compute_spectrum(const Tensor3& M, int h, int top_k = 256);

/// Same through `backend`'s singular_values primitive (cuSOLVER on CUDA, LAPACK on the CPU): the spectrum
/// analysis runs where the rest of the session runs.
Spectrum compute_spectrum(const Tensor3& M, int h, Backend& backend, int top_k = 256);

/// The energy Σ_{l<k} σ_l² / Σ σ_l² captured at rank k (exact spectra only give the true total).
double energy_at_rank(const Spectrum& s, int k);

}  // namespace attnscope
