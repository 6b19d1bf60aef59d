// attnscope — the input of one attention call (Heads: Q, K, V of all heads, with tokens and display groups) and its
// sizes (Shape). Below the variants and the readers: scenarios, text and tensor import produce Heads; variants consume them.
#pragma once
#include <string>
#include <vector>

#include "core/tensor.h"

namespace attnscope {

/// The sizes of one attention call: all a variant needs to resolve its parameters and estimate its cost.
struct Shape {
    int H = 0, N = 0, D = 0, DV = 0;  // heads, positions, head dim of Q and K, head dim of V
    int heads() const { return H; }
    int n() const { return N; }
    int d() const { return D; }
    int dv() const { return DV; }
};

/// Inputs of one attention call: all heads of one layer (or one synthetic scenario).
struct Heads {
    Tensor3 Q;                        // (H, n, d)
    Tensor3 K;                        // (H, n, d)
    Tensor3 V;                        // (H, n, dv)
    Tensor3 X;                        // (1, n, hidden) layer input when known (FNet mixes it); may be empty
    std::vector<std::string> tokens;  // n token strings when the input is text; empty otherwise
    std::vector<int> groups;          // (H·n) group label per head and position for display ordering (the clustered
                                      // scenario's clusters); empty when the input has none
    std::string source;               // "synthetic:gaussian", "text", "tensors:FILE"

    int heads() const { return Q.heads(); }
    int n() const { return Q.rows(); }
    int d() const { return Q.cols(); }
    int dv() const { return V.cols(); }
    Shape shape() const { return {heads(), n(), d(), dv()}; }
};

/// Throws Error unless Q, K, V agree in shape, are non-empty and finite.
void validate_heads(const Heads& heads);

}  // namespace attnscope
