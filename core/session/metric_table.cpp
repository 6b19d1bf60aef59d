#include "core/session/metric_table.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/format.h"

namespace attnscope {

namespace {

std::optional<double> time_ms(const RunResult& r) { return r.cost.time_ms; }
std::optional<double> peak_bytes(const RunResult& r) { return double(r.cost.peak_bytes); }

// clang-format off
constexpr std::array kMetrics = {
    MetricSpec{"rel_err_out", "rel_err_out", "rel_err_out", "err_out",
        "rel_err_out: ‖Õ − O‖ / ‖O‖ vs exact softmax",
        "relative error of the output against exact softmax attention",
        "‖O − O_full‖_F / ‖O_full‖_F, {scope}: relative error of the output against exact softmax attention",
        "%.2e", MetricDirection::LowerIsBetter, &MetricValues::rel_err_out, nullptr, 1, kInRunTable | kInCsv | kSweepable | kKeyBadge | kGraded | kRelativeError},
    MetricSpec{"rel_err_model", "rel_err_model", "rel_err_model", "err_model",
        "rel_err_model: output error vs its own exact model",
        "relative error of the output against the variant's own exact model, where it changes the model",
        "{model} ({scope})",
        "%.2e", MetricDirection::LowerIsBetter, &MetricValues::rel_err_model, nullptr, 1, kInRunTable | kInCsv | kSweepable | kKeyBadge | kGraded | kRelativeError},
    MetricSpec{"rel_err_attn", "rel_err_attn", "rel_err_attn", "err_attn",
        "rel_err_attn: ‖P̃ − P‖ / ‖P‖ vs exact softmax",
        "relative error of the attention matrix against exact softmax attention's",
        "‖P_eff − P‖_F / ‖P‖_F, {scope}: how far the effective attention matrix is from exact softmax attention's (the "
        "svd oracle is the closest any rank-r matrix gets)",
        "%.2e", MetricDirection::LowerIsBetter, &MetricValues::rel_err_attn, nullptr, 1, kInRunTable | kInCsv | kSweepable | kGraded | kNeedsMatrices | kRelativeError},
    MetricSpec{"row_kl", "row_kl", "KL(P‖P_eff)", "KL(P‖P_eff)",
        "row_kl: KL(P ‖ P̃), mean over rows",
        "KL(P ‖ P̃) of the exact softmax rows against the variant's, mean over rows",
        "mean over rows i of KL(P_i ‖ P_eff_i), P = exact softmax, {scope}: infinite as soon as P_eff gives zero weight "
        "to a cell where P has mass — every mask does; see KL(P_eff‖P) for a finite measure",
        "%.2e", MetricDirection::LowerIsBetter, &MetricValues::row_kl, nullptr, 1, kInRunTable | kInCsv | kSweepable | kGraded | kNeedsMatrices},
    MetricSpec{"row_kl_rev", "row_kl_rev", "KL(P_eff‖P)", "KL(P_eff‖P)",
        "row_kl_rev: KL(P̃ ‖ P), mean over rows",
        "KL(P̃ ‖ P) of the variant's rows against the exact softmax rows, mean over rows",
        "mean over rows i of KL(P_eff_i ‖ P_i), P = exact softmax, {scope}: finite for a mask; for a mask renormalised "
        "over its allowed cells it equals the mean of −log(mass kept by row i)",
        "%.2e", MetricDirection::LowerIsBetter, &MetricValues::row_kl_rev, nullptr, 1, kInRunTable | kInCsv | kSweepable | kGraded | kNeedsMatrices},
    MetricSpec{"mass_recall", "mass_recall", "mass_recall", "mass",
        "mass_recall: exact softmax mass kept",
        "the share of the exact softmax mass inside the variant's mask or buckets",
        "mean over rows i of Σ_{j allowed} P_ij, {scope}: share of the exact attention mass the pattern keeps",
        "%.3f", MetricDirection::HigherIsBetter, &MetricValues::mass_recall, nullptr, 1, kInRunTable | kInCsv | kSweepable | kKeyBadge | kGraded},
    MetricSpec{"mass_ceiling", "mass_ceiling", "ceiling", "ceiling",
        "mass_ceiling: the most exact mass as many keys per row keep",
        "the most exact softmax mass any pattern with the same keys per row keeps (the topk oracle's)",
        "the most exact mass any pattern with the same number of keys in each row keeps (the topk oracle, row by row), "
        "{scope}",
        "%.3f", MetricDirection::Describes, &MetricValues::mass_ceiling, nullptr, 1, kInCsv | kKeyBadge | kNeedsMatrices},
    MetricSpec{"rank_ceiling", "rank_ceiling", "svd ceiling", "svd ceiling",
        "rank_ceiling: ‖P − P_r‖ / ‖P‖ of the best rank-r matrix",
        "rel_err_attn of the best rank-r matrix, r = the variant's rank bound: the least any rank-r method reaches",
        "rel_err_attn of P_r, the closest rank-r matrix to the exact P (truncated SVD, Eckart–Young), r = this "
        "variant's rank bound: no method whose P_eff has rank ≤ r gets closer ({scope})",
        "%.2e", MetricDirection::Describes, &MetricValues::rank_ceiling, nullptr, 1, kInCsv | kNeedsMatrices},
    MetricSpec{"density", "density", "density", "density",
        "density: share of cells scored",
        "the share of the score matrix's cells the variant computes, over all heads' cells",
        "allowed cells / (n² or n(n+1)/2 when causal), over every head's cells",
        "%.3f", MetricDirection::Describes, &MetricValues::density, nullptr, 1, kInRunTable | kInCsv | kSweepable | kAllHeadsOnly},
    MetricSpec{"keys_for_90", "keys_for_90", "90% of P_eff in", "90% P_eff",
        "keys_for_90: fewest keys holding 90% of a row of P̃",
        "the fewest keys holding 90% of a row of the variant's matrix, mean over rows",
        "how concentrated this variant's effective matrix P_eff is: the fewest keys that hold 90% of a row's weight, "
        "mean over rows, {scope} (compare the exact P's beside it)",
        "%.1f keys", MetricDirection::Describes, &MetricValues::keys_for_90, nullptr, 1, kInRunTable | kInCsv | kNeedsMatrices},
    MetricSpec{"keys_for_90_exact", "keys_for_90_exact", "90% of exact P in", "90% P",
        "keys_for_90_exact: fewest keys holding 90% of a row of the exact P",
        "the fewest keys holding 90% of a row of the exact softmax matrix, mean over rows",
        "the same of the exact softmax P this run is compared with: how many keys a row of this input needs (how sparse "
        "attention could be here), mean over rows, {scope}",
        "%.1f keys", MetricDirection::Describes, &MetricValues::keys_for_90_exact, nullptr, 1, kInRunTable | kInCsv | kNeedsMatrices},
    MetricSpec{"row_entropy", "row_entropy_nats", "entropy of P_eff", "H(P_eff)",
        "row_entropy: entropy of a row of P̃ (nats)",
        "the entropy of a row of the variant's matrix in nats, mean over rows",
        "mean over rows of −Σ_j P_eff_ij ln P_eff_ij, {scope}; exp(entropy) is the number of equally weighted keys with "
        "the same spread (0: one key; ln n: uniform)",
        "%.2f nats", MetricDirection::Describes, &MetricValues::row_entropy, nullptr, 1, kInRunTable | kInCsv | kNeedsMatrices},
    MetricSpec{"row_entropy_exact", "row_entropy_exact_nats", "entropy of exact P", "H(P)",
        "row_entropy_exact: entropy of a row of the exact P (nats)",
        "the entropy of a row of the exact softmax matrix in nats, mean over rows",
        "mean over rows of −Σ_j P_ij ln P_ij of the exact softmax P this run is compared with, {scope}",
        "%.2f nats", MetricDirection::Describes, &MetricValues::row_entropy_exact, nullptr, 1, kInRunTable | kInCsv | kNeedsMatrices},
    MetricSpec{"time", nullptr, "time", "time",
        "time (ms, compute part)",
        "measured wall time of the run's compute part, all heads",
        "measured wall time of this run's compute part (all heads), once (noisy; lessons time medians of alternating "
        "runs)",
        "%.2f ms", MetricDirection::LowerIsBetter, nullptr, &time_ms, 1, kSweepable},
    MetricSpec{"memory", nullptr, "memory", "memory",
        "peak tracked memory (MiB)",
        "peak tracked bytes held during the run, all heads",
        "peak tracked bytes held during the run (all heads)",
        "bytes", MetricDirection::LowerIsBetter, nullptr, &peak_bytes, 1.0 / 1048576.0, kSweepable},
    MetricSpec{"embedding_cosine", nullptr, "embedding cosine", "emb cos",
        "embedding cosine with the exact encoder",
        "cosine of the sentence embedding with the variant in the encoder against the exact encoder's (text input)",
        "cosine of the sentence embedding with this variant in place of the Input layer's attention (text input only)",
        "%.4f", MetricDirection::HigherIsBetter, nullptr, nullptr, 1, kSweepable},
    MetricSpec{"perplexity", nullptr, "perplexity", "PPL",
        "the decoder's perplexity with the variant",
        "perplexity of the decoder's next-token predictions with the variant in place of the Input layer's attention "
        "(decoder text; the exact model's perplexity is the floor)",
        "exp of the mean next-token NLL over the text with this variant in place of the Input layer's attention, every "
        "head (decoder text only)",
        "%.3f", MetricDirection::LowerIsBetter, nullptr, nullptr, 1, kSweepable},
};
// clang-format on

/// Replaces every `key` in `text` by `value`.
std::string replace_all(std::string text, const std::string& key, const std::string& value) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
        text.replace(at, key.size(), value);
    return text;
}

}  // namespace

std::span<const MetricSpec> metric_table() { return kMetrics; }

const MetricSpec* find_metric(std::string_view id) {
    for (const MetricSpec& m : kMetrics)
        if (id == m.id) return &m;
    return nullptr;
}

std::optional<double> metric_value(const MetricSpec& spec, const RunResult& r) {
    if (spec.field) return r.metrics.*spec.field;
    if (spec.run_value) return spec.run_value(r);
    return std::nullopt;
}

bool measured_outside_run(const MetricSpec& spec) { return !spec.field && !spec.run_value; }

const char* direction_text(MetricDirection d) {
    switch (d) {
        case MetricDirection::LowerIsBetter: return "lower is better";
        case MetricDirection::HigherIsBetter: return "higher is better";
        case MetricDirection::Describes: return "describes";
    }
    return "?";
}

std::string metric_help(const MetricSpec& spec, const std::string& scope, const std::string& model) {
    return replace_all(replace_all(spec.help, "{scope}", scope), "{model}", model);
}

std::string format_metric_value(const MetricSpec& spec, double value) {
    if (std::isinf(value)) return "inf";
    if (std::strcmp(spec.format, "bytes") == 0) return format_bytes(value);
    char buf[64];
    std::snprintf(buf, sizeof buf, spec.format, value);
    return buf;
}

}  // namespace attnscope
