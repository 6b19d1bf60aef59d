// attnscope — lesson checks of the low-rank and hashing families: the spectrum of trained attention
// (Linformer §3), Linformer against the SVD oracle, LSH rounds and its crossover with flash.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "../analysis/spectrum.h"
#include "../data/samples.h"
#include "../data/text_input.h"
#include "../format.h"
#include "check_util.h"

namespace attnscope {

namespace {

/// The embedded sample text the low-rank lesson reads (assets/samples/<id>.txt).
std::string lesson_text(const std::string& id) {
    for (const SampleText& sample : sample_texts())
        if (sample.id == id) return sample.text;
    throw Error("sample text '" + id + "' is not among the embedded samples (assets/samples/)");
}

CheckOutcome low_rank_spectrum(const nlohmann::json& p, Backend& backend) {
    const double level = check_param(p, "level", 0.9), max_fraction = check_param(p, "max_fraction_of_n", 0.5);
    const double min_share = check_param(p, "min_share_of_heads", 0.75);
    TextInputSpec spec;
    spec.text = lesson_text(p.value("sample", std::string("attention")));
    CheckOutcome out;
    int heads_total = 0, heads_early = 0, layers = 1;
    std::vector<double> layer_mean_at_index;
    for (int layer = 0; layer < layers; ++layer) {
        spec.layer = layer;
        const TextInput in = load_text_input(spec);
        layers = in.layers;
        const Heads& h = in.heads;
        Tensor3 P(h.heads(), h.n(), h.n()), O(h.heads(), h.n(), h.dv());
        DenseAttentionArgs a;
        a.Q = &h.Q, a.K = &h.K, a.V = &h.V, a.O = &O, a.P = &P,
        a.scale = static_cast<float>(1.0 / std::sqrt(double(h.d())));
        backend.dense_attention(a);
        const int index = std::max(1, h.n() / 8);  // where the layers × heads heatmap reads c(k)
        double sum_at_index = 0;
        for (int head = 0; head < h.heads(); ++head) {
            const Spectrum s = compute_spectrum(P, head, backend);
            const auto it =
                std::find_if(s.cumulative.begin(), s.cumulative.end(), [&](double c) { return c >= level; });
            const int k_level = static_cast<int>(it - s.cumulative.begin()) + 1;
            ++heads_total;
            heads_early += k_level < max_fraction * h.n();
            sum_at_index += s.cumulative[std::min<size_t>(index - 1, s.cumulative.size() - 1)];
        }
        layer_mean_at_index.push_back(sum_at_index / h.heads());
        out.notes.push_back("layer " + std::to_string(layer) + " (n = " + std::to_string(h.n()) +
                            " tokens): mean c(n/8) = " + format_significant(layer_mean_at_index.back(), 4));
    }
    out.lines.push_back(check_line("share of heads whose cumulative σ passes " + format_significant(level, 4) +
                                       " before index " + format_significant(max_fraction, 4) + "·n",
                                   double(heads_early) / heads_total, min_share, true));
    const double upper = (layer_mean_at_index[layers - 1] + layer_mean_at_index[layers - 2]) / 2;
    const double lower = (layer_mean_at_index[0] + layer_mean_at_index[1]) / 2;
    out.lines.push_back(check_line("higher layers more skewed: mean c(n/8) of the top two layers minus the bottom two",
                                   upper - lower, 0.0, true));
    return out;
}

CheckOutcome linformer_vs_svd(const nlohmann::json& p, Backend& backend) {
    const int n = static_cast<int>(check_param(p, "n", 512));
    std::vector<int> ranks = p.value("ranks", std::vector<int>{16, 64, 256});
    const int seeds = 3;
    CheckOutcome out;
    std::vector<double> lin_errors;
    bool oracle_wins = true;
    const Heads heads = check_input(ScenarioKind::LowRank, n, 2, 64, 0);
    for (int k : ranks) {
        const double svd = *check_run(heads, "svd", {{"rank", std::to_string(k)}}, backend, true).metrics.rel_err_attn;
        double lin = 0;
        for (int seed = 0; seed < seeds; ++seed)
            lin += *check_run(heads, "linformer", {{"k", std::to_string(k)}, {"seed", std::to_string(seed)}}, backend,
                              true)
                        .metrics.rel_err_attn /
                   seeds;
        lin_errors.push_back(lin);
        oracle_wins = oracle_wins && svd <= lin;
        out.notes.push_back("k = " + std::to_string(k) + ": rel_err_attn svd " + format_significant(svd, 4) +
                            ", linformer " + format_significant(lin, 4) + " (mean of " + std::to_string(seeds) +
                            " seeds)");
    }
    out.lines.push_back(check_line("ranks where the SVD oracle is at least as good as linformer (Eckart–Young)",
                                   oracle_wins ? 1.0 : 0.0, 1.0, true));
    out.lines.push_back(check_line("linformer error at the largest k over the smallest k",
                                   lin_errors.back() / lin_errors.front(), 1.0, false));
    return out;
}

CheckOutcome lsh_rounds(const nlohmann::json& p, Backend& backend) {
    const int n = static_cast<int>(check_param(p, "n", 1024));
    const int seeds = static_cast<int>(check_param(p, "seeds", 6));
    CheckOutcome out;
    std::vector<double> errors;
    for (int rounds : {1, 2, 4, 8}) {
        double err = 0;
        for (int seed = 0; seed < seeds; ++seed) {
            const Heads heads = check_input(ScenarioKind::Clustered, n, 2, 64, seed);
            err += *check_run(heads, "lsh", {{"rounds", std::to_string(rounds)}, {"seed", std::to_string(seed)}},
                              backend, false)
                        .metrics.rel_err_out /
                   seeds;
        }
        errors.push_back(err);
        out.notes.push_back(std::to_string(rounds) + " round(s): mean rel_err_out " + format_significant(err, 4));
    }
    out.lines.push_back(
        check_line("error with 8 rounds over error with 1 round", errors.back() / errors.front(), 0.8, false));
    int increases = 0;
    for (size_t k = 1; k < errors.size(); ++k) increases += errors[k] > errors[k - 1] * 1.05;
    out.lines.push_back(check_line("doublings of the rounds that raised the mean error by more than 5% (seed noise)",
                                   increases, 0, false));
    // Crossover by the cost models (the measured one is `attnscope bench --variants lsh,flash`): lsh's own
    // analytic flops against exact attention's 2·n²·(d + dv).
    int crossover = 0;
    for (int m = 256; m <= 65536 && !crossover; m *= 2) {
        const Heads h = check_input(ScenarioKind::Gaussian, m, 1, 64, 0);
        const RunResult r =
            run_variant(h, parse_variant_request("lsh", {{"rounds", "4"}}), RunOptions{}, backend, nullptr);
        if (r.cost.flops < 2.0 * double(m) * m * (64 + 64)) crossover = m;
    }
    out.notes.push_back("analytic crossover (4 rounds, c = 64, d = 64): lsh needs fewer flops than flash from n = " +
                        std::to_string(crossover));
    // No crossover up to 65536 must fail the line, not pass it as "0".
    out.lines.push_back(check_line("analytic crossover n where lsh (4 rounds) needs fewer flops than flash",
                                   crossover ? crossover : 1e9, 65536, false));
    return out;
}

}  // namespace

void add_lowrank_lesson_checks(std::map<std::string, LessonCheck>& checks) {
    checks["low_rank_spectrum"] = low_rank_spectrum;
    checks["linformer_vs_svd"] = linformer_vs_svd;
    checks["lsh_rounds"] = lsh_rounds;
}

}  // namespace attnscope
