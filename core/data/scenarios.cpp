// attnscope — synthetic scenarios. Every value is a pure function of (seed, stream, index) through the
// counter-based generator, so tensors are bit-for-bit reproducible whatever the thread count.
// Scales are chosen so that at temperature 1 the structured part of a logit s·q·k is a few units
// (rows are clearly shaped but not one-hot); temperature T divides every logit.
#include "core/data/scenarios.h"

#include "core/format.h"
#include "core/host_memory.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/backend/shared/random.h"

namespace attnscope {

namespace {

enum Stream : uint64_t { kQ = 1, kK, kV, kCentres, kAssign, kFactors, kHubs, kDirection, kFrequencies };

const std::vector<ScenarioInfo> kScenarios = {
    {ScenarioKind::Gaussian, "gaussian", "Q, K, V i.i.d. N(0,1): no structure, the baseline", {}},
    {ScenarioKind::Clustered, "clustered",
     "tokens around C centres with Q = K: LSH buckets recover the clusters; each row's mass stays in its cluster at any n",
     {"clusters", "number of clusters C the tokens are drawn around", "8", 1, 4096, 8}},
    {ScenarioKind::Local, "local",
     "q·k peaks for |i − j| ≲ b positions (banded): a window of ±b keeps ~90% of the mass at any n (needs d ≥ 32 at "
     "n = 65536)",
     {"band", "half-width b of the band, in positions: |i − j| ≤ b holds most of each row's mass", "16", 1, 1 << 20, 16}},
    {ScenarioKind::Periodic, "periodic",
     "q·k peaks when (i − j) mod p = 0: the strided pattern with stride p keeps ~95% of the mass at any n",
     {"period", "period p of the peaks, in positions (⌈√n⌉ is the strided variant's default stride)", "⌈√n⌉", 1,
      1 << 20}},
    {ScenarioKind::LowRank, "lowrank", "Q, K from a rank-r factor: QKᵀ has rank r, Linformer/SVD approximate it",
     {"rank", "rank r of the factor Q and K are drawn from", "4", 1, 1024, 4}},
    {ScenarioKind::Hubs, "hubs",
     "h hub keys at 0, n/h, 2n/h, … hold ~60% of every row's mass at any n: global tokens on them keep it",
     {"hubs", "number of hub keys h, evenly spaced from position 0", "4", 1, 4096, 4}},
};

/// Random Fourier frequencies for a Gaussian kernel of width `sigma` positions (E_ω[cos ωΔ] = exp(−Δ²/2σ²)),
/// rescaled so their mean square is exactly 1/σ²: the kernel's curvature at Δ = 0, and with it the band's width,
/// then does not vary with the seed (a few dozen draws alone vary it by ±25%).
std::vector<double> gaussian_kernel_frequencies(int pairs, double sigma, uint64_t seed) {
    std::vector<double> omega(pairs);
    double square = 0;
    for (int f = 0; f < pairs; ++f) omega[f] = rng::normal(seed, kFrequencies, f), square += omega[f] * omega[f];
    const double to_width = std::sqrt(pairs / std::max(square, 1e-12)) / sigma;
    for (double& w : omega) w *= to_width;
    return omega;
}

/// Smallest peak logit A in [6, 24] with A − A²/(4F) ≥ need: a cosine sum over F random-phase frequency pairs has
/// std A/√(2F) away from its peaks, so each far key weighs about exp(A²/(4F)) against a peak's exp(A).
double peak_logit(double need, int pairs) {
    double best = 6.0;  // rows clearly shaped, never one-hot
    for (double A = 6.0; A <= 24.0; A += 0.05) {
        best = A;
        if (A - A * A / (4.0 * std::max(1, pairs)) >= need) break;
    }
    return best;
}

/// Local: the band (≈ exp(A)·√(2π)·σ) must outweigh the n far keys 19×, so ~95% of a row stays off the far field.
double local_peak_logit(int n, double sigma, int pairs) {
    return peak_logit(std::log(19.0 * n / (std::sqrt(2.0 * M_PI) * sigma)), pairs);
}

/// Key noise of the hubs scenario: small enough that the n non-hub logits (variance 2σ²) sum to their mean
/// n·exp(σ²) already at small n, so the hubs' share does not drift with n.
constexpr float kHubKeyNoise = 0.5f;

/// Hub logit L: the h hubs hold a share `rho` of a typical row's mass against n non-hub keys whose weights sum to
/// ≈ n·exp(σ²). The hubs' own noise is left out: with a few hubs a row meets their median, not their mean.
double hub_logit(int n, int hubs, double rho) {
    const double sigma2 = double(kHubKeyNoise) * kHubKeyNoise;
    return std::max(1.0, std::log(rho / (1.0 - rho) * double(std::max(1, n - hubs)) / hubs) + sigma2);
}

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

const std::string& scenario_id(ScenarioKind kind) { return scenario_info(kind).id; }

const ScenarioInfo& scenario_info(ScenarioKind kind) {
    for (const ScenarioInfo& s : kScenarios)
        if (s.kind == kind) return s;
    return kScenarios.front();
}

int scenario_structure(const ScenarioSpec& spec) {
    const ScenarioInfo& info = scenario_info(spec.kind);
    if (info.param.name.empty()) return 0;
    if (spec.structure == 0)  // the default: fixed, or the strided variant's default stride for the period
        return info.param.fixed_default ? info.param.fixed_default
                                        : std::max(1, static_cast<int>(std::ceil(std::sqrt(double(spec.n)))));
    if (spec.structure < info.param.lo || spec.structure > info.param.hi)
        throw Error(info.id + ": " + info.param.name + " = " + std::to_string(spec.structure) + " is out of range: choose " +
                    std::to_string(info.param.lo) + " ≤ " + info.param.name + " ≤ " + std::to_string(info.param.hi) +
                    " (or 0 for the default, " + info.param.auto_help + ")");
    return spec.structure;
}

std::vector<int> scenario_hub_positions(const ScenarioSpec& spec) {
    if (spec.kind != ScenarioKind::Hubs) return {};
    const int hubs = std::min(scenario_structure(spec), spec.n);
    std::vector<int> out;
    for (int k = 0; k < hubs; ++k) out.push_back(static_cast<int>(int64_t(k) * spec.n / hubs));
    return out;
}

namespace {

/// Throws unless n, H, d, dv and T are in range.
void check_ranges(const ScenarioSpec& spec) {
    namespace r = scenario_range;
    const std::string n_max = std::to_string(r::kMaxN), d_max = std::to_string(r::kMaxDim);
    if (spec.n < r::kMinN || spec.n > r::kMaxN)
        throw Error("n = " + std::to_string(spec.n) + " is out of range: choose 1 ≤ n ≤ " + n_max);
    if (spec.heads < r::kMinHeads || spec.heads > r::kMaxHeads)
        throw Error("heads = " + std::to_string(spec.heads) + " is out of range: choose 1 ≤ H ≤ " +
                    std::to_string(r::kMaxHeads));
    if (spec.dim < r::kMinDim || spec.dim > r::kMaxDim)
        throw Error("dim = " + std::to_string(spec.dim) + " is out of range: choose 1 ≤ d ≤ " + d_max);
    if (spec.value_dim < 0 || spec.value_dim > r::kMaxDim)
        throw Error("value dim = " + std::to_string(spec.value_dim) + " is out of range: choose 0 (= d) to " + d_max);
    if (!(spec.temperature > 0.0) || spec.temperature > r::kMaxTemperature)
        throw Error("temperature = " + std::to_string(spec.temperature) + " is out of range: choose 0 < T ≤ " +
                    format_significant(r::kMaxTemperature, 3));
}

/// What every generator draws from: the shape, the scenario's structure parameter, the seed and the scales.
struct Draws {
    int H, n, d, dv, structure;
    uint64_t seed;
    float inv_t;   // 1 / temperature, on Q
    float sqrt_d;

    /// The N(0, 1) draw of element (h, i, c) of a (H, n, cols) tensor in `stream`.
    float noise(uint64_t stream, int h, int i, int c, int cols) const {
        return static_cast<float>(rng::normal(seed, stream, counter(h, i, c, n, cols)));
    }
};

/// The draws of `spec`, its structure parameter resolved (scenario_structure throws when out of range).
Draws draws_of(const ScenarioSpec& spec) {
    Draws g;
    g.H = spec.heads, g.n = spec.n, g.d = spec.dim, g.dv = spec.value_dim ? spec.value_dim : spec.dim;
    g.structure = scenario_structure(spec);
    g.seed = spec.seed;
    g.inv_t = static_cast<float>(1.0 / spec.temperature);
    g.sqrt_d = std::sqrt(static_cast<float>(g.d));
    return g;
}

/// Q, K i.i.d. N(0, 1), Q divided by T.
void fill_gaussian(Heads& out, const Draws& g) {
    fill(out.Q, [&](int h, int i, int c) { return g.inv_t * g.noise(kQ, h, i, c, g.d); });
    fill(out.K, [&](int h, int i, int c) { return g.noise(kK, h, i, c, g.d); });
}

/// Same-cluster logits ≈ ‖μ‖²/√d ≈ √d, cross-cluster ≈ N(0, 1): rows concentrate on their cluster, whose share of
/// the keys (1/C) does not depend on n.
void fill_clustered(Heads& out, const Draws& g) {
    const int H = g.H, n = g.n, d = g.d;
    const uint64_t seed = g.seed;
    const int clusters = std::min(n, g.structure);
    auto cluster_of = [&](int h, int i) { return static_cast<int>(rng::below(seed, kAssign, uint64_t(h) * n + i, clusters)); };
    auto centre = [&](int h, int k, int c) {
        return static_cast<float>(rng::normal(seed, kCentres, (uint64_t(h) * clusters + k) * d + c));
    };
    out.groups.resize(size_t(H) * n);
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) out.groups[size_t(h) * n + i] = cluster_of(h, i);
    fill(out.K, [&](int h, int i, int c) { return centre(h, cluster_of(h, i), c) + 0.35f * g.noise(kK, h, i, c, d); });
    fill(out.Q, [&](int h, int i, int c) { return g.inv_t * out.K.at(h, i, c); });
}

/// Positional features' frequencies ω_f, how many of the d/2 pairs carry one, and the peak logit A they are scaled to.
struct PositionalComb {
    std::vector<double> omega;
    int used = 0;
    double A = 6.0;
};

/// Local: ω_f drawn for a Gaussian kernel whose width follows the band b (not n), and a peak A that grows with
/// ln(n/b) so the band beats the far field at any n.
PositionalComb local_comb(const Draws& g) {
    const int pairs = g.d / 2;
    PositionalComb comb;
    comb.used = pairs;
    const double sigma_eff = g.structure / 2.0;  // ±b = ±2σ holds ~95% of a Gaussian row
    comb.A = local_peak_logit(g.n, sigma_eff, pairs);
    comb.omega = gaussian_kernel_frequencies(pairs, sigma_eff * std::sqrt(comb.A), g.seed);
    return comb;
}

/// Periodic: harmonics of 2π/p, so the logit peaks exactly at (i − j) mod p = 0. While p/2 ≤ F all harmonics fit
/// (a Dirichlet comb, slightly negative between peaks); beyond, F harmonics drawn at random keep the comb one
/// position sharp with random-phase noise between peaks, which the peak logit outweighs.
PositionalComb periodic_comb(const Draws& g) {
    const int pairs = g.d / 2;
    PositionalComb comb;
    comb.used = pairs;
    const int period = g.structure, harmonics = std::max(1, period / 2);
    if (harmonics <= pairs) {
        comb.used = harmonics * (pairs / harmonics);  // every harmonic equally often
        for (int f = 0; f < comb.used; ++f) comb.omega.push_back(2.0 * M_PI * (1 + f % harmonics) / period);
        comb.A = peak_logit(std::log(19.0 * period), 1 << 20);
    } else {
        for (int f = 0; f < pairs; ++f)
            comb.omega.push_back(2.0 * M_PI * (1 + double(rng::below(g.seed, kFrequencies, f, harmonics))) / period);
        comb.A = peak_logit(std::log(19.0 * period), pairs);
    }
    return comb;
}

/// Local and periodic: positional features, pairs (cos ω_f·i, sin ω_f·i), so s·q_i·k_j = A·(1/F)·Σ_f cos(ω_f (i − j)).
/// Either comb makes the peaks outweigh the rest 19× at any n: the mass follows b or p, not n.
void fill_positional(Heads& out, const Draws& g, const PositionalComb& comb) {
    const int d = g.d, used = comb.used;
    const std::vector<double>& omega = comb.omega;
    const float amp = used > 0 ? std::sqrt(float(comb.A) * g.sqrt_d / used) : 0.0f;  // peak s·q·k = amp²·F/√d = A
    fill(out.K, [&](int h, int i, int c) { return amp * positional(omega, i, c) + 0.1f * g.noise(kK, h, i, c, d); });
    fill(out.Q, [&](int h, int i, int c) {
        return g.inv_t * (amp * positional(omega, i, c) + 0.1f * g.noise(kQ, h, i, c, d));
    });
}

/// Q = A·W_q, K = A·W_k with A (n×r): QKᵀ = A·W_q·W_kᵀ·Aᵀ has rank r (plus 1% noise).
void fill_lowrank(Heads& out, const Draws& g) {
    const int n = g.n, d = g.d;
    const uint64_t seed = g.seed;
    const int r = std::min(d, g.structure);
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
    fill(out.Q, [&](int h, int i, int c) { return g.inv_t * (project(0, h, i, c) + 0.01f * g.noise(kQ, h, i, c, d)); });
    fill(out.K, [&](int h, int i, int c) { return project(1, h, i, c) + 0.01f * g.noise(kK, h, i, c, d); });
}

/// The hubs' shared direction u per head, (H, 1, d), scaled to ‖u‖² = d.
Tensor3 hub_directions(const Draws& g) {
    const int H = g.H, d = g.d;
    Tensor3 u(H, 1, d);
    for (int h = 0; h < H; ++h) {
        double sq = 0;
        for (int col = 0; col < d; ++col) {
            u.at(h, 0, col) = static_cast<float>(rng::normal(g.seed, kDirection, uint64_t(h) * d + col));
            sq += double(u.at(h, 0, col)) * u.at(h, 0, col);
        }
        const float to_norm = static_cast<float>(std::sqrt(d / std::max(sq, 1e-12)));
        for (int col = 0; col < d; ++col) u.at(h, 0, col) *= to_norm;
    }
    return u;
}

/// Every query is u plus noise orthogonal to u (‖u‖² = d); the h hub keys carry c·u with c = L/√d, so every hub's
/// logit is L plus N(0, 2σ²) noise, against N(0, 2σ²) for other keys (σ = kHubKeyNoise). Keeping the query noise
/// off u keeps L from adding a per-row shift that would grow with n; L grows with ln(n/h) (hub_logit), so the hubs
/// hold the same share of each row's mass at any n.
void fill_hubs(Heads& out, const Draws& g, const std::vector<int>& positions) {
    const int H = g.H, n = g.n, d = g.d;
    const float inv_t = g.inv_t;
    std::vector<char> is_hub(n, 0);
    for (int pos : positions) is_hub[pos] = 1;
    const double L = hub_logit(n, static_cast<int>(positions.size()), 0.65);
    const float c = static_cast<float>(L / g.sqrt_d);
    const Tensor3 u = hub_directions(g);
    fill(out.K, [&](int h, int i, int col) {
        return kHubKeyNoise * g.noise(kK, h, i, col, d) + (is_hub[i] ? c * u.at(h, 0, col) : 0.0f);
    });
#pragma omp parallel for collapse(2) schedule(static)
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) {
            double along = 0;  // (noise·u)/‖u‖²: the part of the noise along u, removed below
            for (int col = 0; col < d; ++col) along += double(g.noise(kQ, h, i, col, d)) * u.at(h, 0, col);
            along /= d;
            for (int col = 0; col < d; ++col)
                out.Q.at(h, i, col) = inv_t * static_cast<float>(g.noise(kQ, h, i, col, d) - along * u.at(h, 0, col) +
                                                                  u.at(h, 0, col));
        }
}

}  // namespace

Heads make_scenario(const ScenarioSpec& spec) {
    check_ranges(spec);
    const Draws g = draws_of(spec);
    // Q, K, V plus the generators' temporaries of the same size.
    require_host_memory(2 * int64_t(sizeof(float)) * g.H * g.n * (2ll * g.d + g.dv),
                        "the synthetic input (n = " + std::to_string(g.n) + ", H = " + std::to_string(g.H) +
                            ", d = " + std::to_string(g.d) + ")",
                        "lower n, the number of heads or d");
    Heads out;
    out.source = "synthetic:" + scenario_id(spec.kind);
    out.Q = Tensor3(g.H, g.n, g.d);
    out.K = Tensor3(g.H, g.n, g.d);
    out.V = Tensor3(g.H, g.n, g.dv);
    fill(out.V, [&](int h, int i, int c) { return g.noise(kV, h, i, c, g.dv); });
    switch (spec.kind) {
        case ScenarioKind::Gaussian: fill_gaussian(out, g); break;
        case ScenarioKind::Clustered: fill_clustered(out, g); break;
        case ScenarioKind::Local: fill_positional(out, g, local_comb(g)); break;
        case ScenarioKind::Periodic: fill_positional(out, g, periodic_comb(g)); break;
        case ScenarioKind::LowRank: fill_lowrank(out, g); break;
        case ScenarioKind::Hubs: fill_hubs(out, g, scenario_hub_positions(spec)); break;
    }
    return out;
}

}  // namespace attnscope
