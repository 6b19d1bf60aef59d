// attnscope — synthetic scenarios. Every value is a pure function of (seed, stream, index) through the
// counter-based generator, so tensors are bit-for-bit reproducible whatever the thread count.
// Scales are chosen so that at temperature 1 the structured part of a logit s·q·k is a few units
// (rows are clearly shaped but not one-hot); temperature T divides every logit.
#include "scenarios.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "../primitives/random.h"

namespace attnscope {

namespace {

enum Stream : uint64_t { kQ = 1, kK, kV, kCentres, kAssign, kFactors, kHubs, kDirection };

const std::vector<ScenarioInfo> kScenarios = {
    {ScenarioKind::Gaussian, "gaussian", "Q, K, V i.i.d. N(0,1): no structure, the baseline"},
    {ScenarioKind::Clustered, "clustered", "tokens around 8 centres with Q = K: LSH buckets recover the clusters"},
    {ScenarioKind::Local, "local", "q·k peaks for nearby positions (banded): sliding windows keep the mass"},
    {ScenarioKind::Periodic, "periodic", "q·k peaks when (i−j) mod p = 0, p = round(√n): the strided pattern fits"},
    {ScenarioKind::LowRank, "lowrank", "Q, K from a rank-4 factor: QKᵀ has rank 4, Linformer/SVD approximate it"},
    {ScenarioKind::Hubs, "hubs", "n/64 hub keys every query attends to: global tokens keep the mass"},
};

/// Fills every (h, i, c) of `t` with f(h, i, c), in parallel.
void fill(Tensor3& t, const std::function<float(int, int, int)>& f) {
    const int H = t.heads(), n = t.rows(), c = t.cols();
#pragma omp parallel for collapse(2) schedule(static)
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < c; ++j) t.at(h, i, j) = f(h, i, j);
}

/// Index of element (h, i, c) in a (H, n, cols) tensor, as the generator's counter.
uint64_t counter(int h, int i, int c, int n, int cols) {
    return (static_cast<uint64_t>(h) * n + i) * cols + c;
}

/// Positional features: pairs (cos ω_f·i, sin ω_f·i), so q_i·k_j = Σ_f cos(ω_f (i − j)).
float positional(const std::vector<double>& omega, int i, int c) {
    const int f = c / 2;
    if (f >= static_cast<int>(omega.size())) return 0.0f;
    return static_cast<float>(c % 2 == 0 ? std::cos(omega[f] * i) : std::sin(omega[f] * i));
}

}  // namespace

const std::vector<ScenarioInfo>& scenario_list() { return kScenarios; }

ScenarioKind parse_scenario(const std::string& id) {
    std::string known;
    for (const ScenarioInfo& s : kScenarios) {
        if (s.id == id) return s.kind;
        known += (known.empty() ? "" : ", ") + s.id;
    }
    throw Error("unknown scenario '" + id + "'; choose one of: " + known);
}

const std::string& scenario_id(ScenarioKind kind) {
    for (const ScenarioInfo& s : kScenarios)
        if (s.kind == kind) return s.id;
    return kScenarios.front().id;
}

Heads make_scenario(const ScenarioSpec& spec) {
    if (spec.n < 1 || spec.n > (1 << 20))
        throw Error("n = " + std::to_string(spec.n) + " is out of range: choose 1 ≤ n ≤ 1048576");
    if (spec.heads < 1 || spec.heads > 64)
        throw Error("heads = " + std::to_string(spec.heads) + " is out of range: choose 1 ≤ H ≤ 64");
    if (spec.dim < 1 || spec.dim > 1024)
        throw Error("dim = " + std::to_string(spec.dim) + " is out of range: choose 1 ≤ d ≤ 1024");
    if (spec.value_dim < 0 || spec.value_dim > 1024)
        throw Error("value dim = " + std::to_string(spec.value_dim) + " is out of range: choose 0 (= d) to 1024");
    if (!(spec.temperature > 0.0) || spec.temperature > 100.0)
        throw Error("temperature = " + std::to_string(spec.temperature) + " is out of range: choose 0 < T ≤ 100");

    const int H = spec.heads, n = spec.n, d = spec.dim, dv = spec.value_dim ? spec.value_dim : spec.dim;
    const uint64_t seed = spec.seed;
    const float inv_t = static_cast<float>(1.0 / spec.temperature);
    const float sqrt_d = std::sqrt(static_cast<float>(d));
    Heads out;
    out.source = "synthetic:" + scenario_id(spec.kind);
    out.Q = Tensor3(H, n, d);
    out.K = Tensor3(H, n, d);
    out.V = Tensor3(H, n, dv);
    auto noise = [&](uint64_t stream, int h, int i, int c, int cols) {
        return static_cast<float>(rng::normal(seed, stream, counter(h, i, c, n, cols)));
    };
    fill(out.V, [&](int h, int i, int c) { return noise(kV, h, i, c, dv); });

    switch (spec.kind) {
        case ScenarioKind::Gaussian:
            fill(out.Q, [&](int h, int i, int c) { return inv_t * noise(kQ, h, i, c, d); });
            fill(out.K, [&](int h, int i, int c) { return noise(kK, h, i, c, d); });
            break;
        case ScenarioKind::Clustered: {
            // Same-cluster logits ≈ ‖μ‖²/√d ≈ √d, cross-cluster ≈ N(0, 1): rows concentrate on their cluster.
            const int clusters = std::min(n, 8);
            auto cluster_of = [&](int h, int i) { return static_cast<int>(rng::below(seed, kAssign, uint64_t(h) * n + i, clusters)); };
            auto centre = [&](int h, int k, int c) { return static_cast<float>(rng::normal(seed, kCentres, (uint64_t(h) * 8 + k) * d + c)); };
            fill(out.K, [&](int h, int i, int c) { return centre(h, cluster_of(h, i), c) + 0.35f * noise(kK, h, i, c, d); });
            fill(out.Q, [&](int h, int i, int c) { return inv_t * out.K.at(h, i, c); });
            break;
        }
        case ScenarioKind::Local:
        case ScenarioKind::Periodic: {
            // Σ_f cos(ω_f (i − j)) peaks at i = j (Local: frequencies spread from 1/n to 1/2 cycle per step)
            // or at every multiple of p (Periodic: harmonics of 2π/p). Peak logit ≈ 6 at T = 1.
            const int pairs = d / 2;
            std::vector<double> omega(pairs);
            const int period = std::max(2, static_cast<int>(std::lround(std::sqrt(static_cast<double>(n)))));
            for (int f = 0; f < pairs; ++f) {
                if (spec.kind == ScenarioKind::Local) {
                    const double lo = std::log(M_PI / std::max(n, 2)), hi = std::log(M_PI / 2.0);
                    omega[f] = std::exp(lo + (hi - lo) * (pairs > 1 ? double(f) / (pairs - 1) : 1.0));
                } else {
                    omega[f] = 2.0 * M_PI * (1 + f % std::max(1, period / 2)) / period;
                }
            }
            const float amp = pairs > 0 ? std::sqrt(6.0f * sqrt_d / pairs) : 0.0f;  // peak s·q·k = amp²·pairs/√d = 6
            fill(out.K, [&](int h, int i, int c) { return amp * positional(omega, i, c) + 0.1f * noise(kK, h, i, c, d); });
            fill(out.Q, [&](int h, int i, int c) {
                return inv_t * (amp * positional(omega, i, c) + 0.1f * noise(kQ, h, i, c, d));
            });
            break;
        }
        case ScenarioKind::LowRank: {
            // Q = A·W_q, K = A·W_k with A (n×r): QKᵀ = A·W_q·W_kᵀ·Aᵀ has rank r (plus 1% noise).
            const int r = std::min(d, 4);
            const float inv_sqrt_r = 1.0f / std::sqrt(static_cast<float>(r));
            auto factor = [&](int h, int i, int k) { return static_cast<float>(rng::normal(seed, kFactors, (uint64_t(h) * n + i) * r + k)); };
            auto weight = [&](uint64_t which, int h, int k, int c) {
                return static_cast<float>(rng::normal(seed, kFactors + 100 + which, (uint64_t(h) * r + k) * d + c));
            };
            auto project = [&](uint64_t which, int h, int i, int c) {
                float s = 0;
                for (int k = 0; k < r; ++k) s += factor(h, i, k) * weight(which, h, k, c);
                return 1.41421356f * s * inv_sqrt_r;
            };
            fill(out.Q, [&](int h, int i, int c) { return inv_t * (project(0, h, i, c) + 0.01f * noise(kQ, h, i, c, d)); });
            fill(out.K, [&](int h, int i, int c) { return project(1, h, i, c) + 0.01f * noise(kK, h, i, c, d); });
            break;
        }
        case ScenarioKind::Hubs: {
            // Every query carries a shared direction u; hub keys carry 0.6·u: logit to a hub ≈ 0.6·√d.
            const int hubs = std::max(1, n / 64);
            std::vector<char> is_hub(n, 0);
            for (int k = 0, placed = 0; placed < hubs; ++k) {
                const int pos = static_cast<int>(rng::below(seed, kHubs, k, n));
                if (!is_hub[pos]) is_hub[pos] = 1, ++placed;
            }
            auto dir = [&](int h, int c) { return static_cast<float>(rng::normal(seed, kDirection, uint64_t(h) * d + c)); };
            fill(out.K, [&](int h, int i, int c) { return noise(kK, h, i, c, d) + (is_hub[i] ? 0.6f * dir(h, c) : 0.0f); });
            fill(out.Q, [&](int h, int i, int c) { return inv_t * (noise(kQ, h, i, c, d) + dir(h, c)); });
            break;
        }
    }
    return out;
}

}  // namespace attnscope
