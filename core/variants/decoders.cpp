#include "core/variants/decoders.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/memory.h"

namespace attnscope {

namespace {

using TrackedVector = std::vector<float, TrackingAllocator<float>>;

class KvCacheDecoder : public Decoder {
public:
    KvCacheDecoder(int d, int dv, float scale) : m_d(d), m_dv(dv), m_scale(scale) {}
    void step(const float* q, const float* k, const float* v, float* o) override {
        m_keys.insert(m_keys.end(), k, k + m_d);
        m_values.insert(m_values.end(), v, v + m_dv);
        const size_t t = m_keys.size() / size_t(m_d);
        m_scores.resize(t);
        float top = -INFINITY;
        for (size_t j = 0; j < t; ++j) {
            float dot = 0;
            for (int c = 0; c < m_d; ++c) dot += q[c] * m_keys[j * m_d + c];
            m_scores[j] = m_scale * dot;
            top = std::max(top, m_scores[j]);
        }
        double sum = 0;
        std::fill(o, o + m_dv, 0.0f);
        for (size_t j = 0; j < t; ++j) {
            const float w = std::exp(m_scores[j] - top);
            sum += w;
            for (int c = 0; c < m_dv; ++c) o[c] += w * m_values[j * m_dv + c];
        }
        for (int c = 0; c < m_dv; ++c) o[c] = static_cast<float>(o[c] / sum);
    }

private:
    int m_d, m_dv;
    float m_scale;
    TrackedVector m_keys, m_values, m_scores;  // the cache: every key and value so far, and one score per key
};

class LinearDecoder : public Decoder {
public:
    LinearDecoder(int d, int dv, float eps) : m_d(d), m_dv(dv), m_eps(eps), m_S(size_t(d) * dv, 0.0f), m_z(d, 0.0f),
                                              m_phi(d, 0.0f) {}
    void step(const float* q, const float* k, const float* v, float* o) override {
        for (int c = 0; c < m_d; ++c) m_phi[c] = phi(k[c]);
        for (int c = 0; c < m_d; ++c) {
            m_z[c] += m_phi[c];
            for (int e = 0; e < m_dv; ++e) m_S[size_t(c) * m_dv + e] += m_phi[c] * v[e];
        }
        for (int c = 0; c < m_d; ++c) m_phi[c] = phi(q[c]);
        double denom = m_eps;
        for (int c = 0; c < m_d; ++c) denom += double(m_phi[c]) * m_z[c];
        for (int e = 0; e < m_dv; ++e) {
            double acc = 0;
            for (int c = 0; c < m_d; ++c) acc += double(m_phi[c]) * m_S[size_t(c) * m_dv + e];
            o[e] = static_cast<float>(denom > 0 ? acc / denom : 0.0);
        }
    }

private:
    static float phi(float x) { return x > 0 ? x + 1.0f : std::exp(x); }  // elu(x) + 1
    int m_d, m_dv;
    float m_eps;
    TrackedVector m_S, m_z, m_phi;  // the state S (d×dv) and z (d), and φ of the current token
};

}  // namespace

std::unique_ptr<Decoder> make_kv_cache_decoder(int d, int dv, float scale) {
    return std::make_unique<KvCacheDecoder>(d, dv, scale);
}

std::unique_ptr<Decoder> make_linear_decoder(int d, int dv, float eps) {
    return std::make_unique<LinearDecoder>(d, dv, eps);
}

}  // namespace attnscope
