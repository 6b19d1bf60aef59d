// attnscope — autoregressive decoding, one token at a time: the recurrent view of causal attention. Softmax
// attention keeps a growing cache of every key and value; causal linear attention keeps a d×dv running sum and a
// d-vector — an RNN state that does not grow. Both keep their state in tracked buffers, so the bytes a decoder
// holds are measured like every other allocation (memory_counters()).
#pragma once
#include <memory>

namespace attnscope {

/// Decodes one head token by token.
class Decoder {
public:
    virtual ~Decoder() = default;
    /// Consumes token t's query q (d), key k (d) and value v (dv) and writes its output o (dv): attention of q over
    /// the keys and values of tokens 0…t.
    virtual void step(const float* q, const float* k, const float* v, float* o) = 0;
};

/// Softmax attention with a key-value cache: softmax(s·q·Kᵀ)·V over every token so far; the cache grows by
/// d + dv floats per token.
std::unique_ptr<Decoder> make_kv_cache_decoder(int d, int dv, float scale);

/// Causal linear attention as an RNN (Katharopoulos et al. 2020 §3.4): S += φ(k)·vᵀ, z += φ(k),
/// o = φ(q)ᵀS / (φ(q)ᵀz + ε) with φ = elu + 1; the state is S (d×dv) and z (d), whatever the length.
std::unique_ptr<Decoder> make_linear_decoder(int d, int dv, float eps);

}  // namespace attnscope
