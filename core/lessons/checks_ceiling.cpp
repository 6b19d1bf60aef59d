// attnscope — lesson check "the ceiling": each family against its oracle at equal budget. `topk` keeps each row's
// k largest exact probabilities, so no mask with at most k keys in a row keeps more of that row's exact mass;
// `svd` (rank r) is the closest rank-r matrix to P in Frobenius norm (Eckart–Young), so no method whose P̃ has
// rank ≤ r is closer. The check measures both on the lesson's text and on two synthetic scenarios, and how far
// each variant sits below its ceiling.
#include <algorithm>
#include <cmath>

#include "core/format.h"
#include "core/variants/instance_label.h"
#include "core/variants/rank_bound.h"
#include "core/variants/registry.h"
#include "core/lessons/check_util.h"
#include "core/lessons/definition_keys.h"
#include "core/lessons/preset.h"

namespace attnscope {

namespace {

/// Where the variants of the preset stand against their oracle on one input: the smallest margin over each
/// family (the oracle's advantage, ≥ 0 when the guarantee holds), with notes on every variant's gap.
struct FamilyMargins {
    double masked = 1e300, reaches = 1e300, low_rank = 1e300;
    std::string masked_worst, reaches_worst, low_rank_worst;
    int64_t off_definition = 0;  // query rows (over heads and masked views) whose kept keys the definition rules out
    std::string off_definition_worst;
};

/// Query rows (over all heads) of a masked run whose count of kept keys lies outside its definition's range at this
/// n (definition_keys, written from the papers): a mask one key too wide or a lost forced line shows here even where
/// the mass stays under the topk ceiling.
int64_t rows_off_definition(const std::string& id, const RunResult& run, int n, std::string& first) {
    const std::vector<KeyRange> want = definition_keys(id, run.params, run.causal, n);
    const ReasonMask& mask = *run.structure.mask;
    int64_t off = 0;
    for (int h = 0; h < mask.heads; ++h)
        for (int i = 0; i < mask.n; ++i) {
            const int kept = keys_in_row(mask, h, i);
            if (kept >= want[size_t(i)].lo && kept <= want[size_t(i)].hi) continue;
            if (off++ == 0)
                first = "head " + std::to_string(h) + " row " + std::to_string(i) + " keeps " + std::to_string(kept) +
                        " keys, its definition " + std::to_string(want[size_t(i)].lo) +
                        (want[size_t(i)].hi != want[size_t(i)].lo ? "–" + std::to_string(want[size_t(i)].hi) : "");
        }
    return off;
}

/// Measures every masked and low-rank view of the preset on `heads`; with `screen`, records what the lesson's
/// panels show (their badges) as the check's screen values.
FamilyMargins measure_input(const Lesson& lesson, CheckContext& ctx, const std::string& label, const Heads& heads,
                            CheckOutcome& out, bool screen) {
    FamilyMargins m;
    const VariantRequest topk = preset_request(lesson, "topk"), svd = preset_request(lesson, "svd");
    const std::vector<VariantRequest> views = preset_variants(lesson.preset);
    for (size_t view = 0; view < views.size(); ++view) {
        const VariantRequest& request = views[view];
        if (request.id == "full" || request.id == "svd") continue;
        const RunResult run = check_run(ctx, heads, request, true);
        if (request.id == "topk") {  // the oracle's own panel: what every mask's mass is compared with on screen
            if (screen) out.screen.push_back({int(view), "mass_recall", run.metrics.mass_recall.value_or(NAN)});
            continue;
        }
        const std::string name = instance_label(find_variant(request.id).info(), run.params);
        if (find_variant(request.id).info().has_mask) {
            // The ceiling on screen: row by row, the exact mass of the k_i largest probabilities, k_i = the keys this
            // mask keeps in row i. The topk variant at the most keys any row keeps (same causality) must reach it —
            // the oracle measured on its own code path.
            const KeysPerQuery keys = keys_per_query(run);
            const RunResult oracle = check_run(
                ctx, heads,
                with_params(topk, {{"k", std::to_string(keys.most)}, {"causal", run.causal ? "1" : "0"}}), false);
            const double kept = run.metrics.mass_recall.value_or(1.0), ceiling = run.metrics.mass_ceiling.value_or(NAN),
                         best = oracle.metrics.mass_recall.value_or(1.0);
            out.notes.push_back(label + ": " + name + " keeps " + format_percent(kept, 3) + " of the exact " +
                                (run.causal ? "causal " : "") + "mass with ≤ " + std::to_string(keys.most) +
                                " keys per query (mean " + format_significant(keys.mean, 3) + "); its ceiling (topk row by "
                                "row at its keys per row) " + format_percent(ceiling, 3) + " — " +
                                format_significant(100 * (ceiling - kept), 3) + " points below; topk at k = " +
                                std::to_string(keys.most) + " keeps " + format_percent(best, 3) + "; output error " +
                                "rel_err_out " + format_significant(run.metrics.rel_err_out.value_or(NAN), 3) +
                                ", topk's " + format_significant(oracle.metrics.rel_err_out.value_or(NAN), 3) +
                                " (not guaranteed lower)");
            std::string first_off;
            const int64_t off = rows_off_definition(request.id, run, heads.n(), first_off);
            if (off > 0) out.notes.push_back(label + ": " + name + " — " + std::to_string(off) + " rows off its definition (" +
                                             first_off + ")");
            if (off > m.off_definition || m.off_definition_worst.empty()) m.off_definition = off, m.off_definition_worst = name;
            if (!(ceiling - kept >= m.masked)) m.masked = ceiling - kept, m.masked_worst = name;  // NaN is kept: it fails
            if (!(best - ceiling >= m.reaches)) m.reaches = best - ceiling, m.reaches_worst = name;
            if (screen) {
                out.screen.push_back({int(view), "mass_recall", kept});
                out.screen.push_back({int(view), "mass_ceiling", ceiling});
            }
            continue;
        }
        const int rank = rank_bound(run, heads.d());
        if (rank == 0 || run.causal)
            throw Error("lesson " + lesson.id + ": " + name + " is neither masked nor a non-causal low-rank variant "
                        "with a known rank bound (linformer, performer, linear): the ceiling check cannot place it");
        const RunResult oracle = check_run(ctx, heads, with_params(svd, {{"rank", std::to_string(rank)}}), true);
        const double err = run.metrics.rel_err_attn.value_or(NAN), best = oracle.metrics.rel_err_attn.value_or(NAN);
        out.notes.push_back(label + ": " + name + " rel_err_attn " + format_significant(err, 3) + " (rank ≤ " +
                            std::to_string(rank) + "); svd at r = " + std::to_string(rank) + " " +
                            format_significant(best, 3) + " — " + format_significant(err - best, 3) +
                            " above its ceiling");
        if (!(err - best >= m.low_rank)) m.low_rank = err - best, m.low_rank_worst = name;  // NaN is kept: it fails
        if (screen) {
            out.screen.push_back({int(view), "rel_err_attn", err});
            out.screen.push_back({int(view), "rank_ceiling", best});
        }
    }
    return m;
}

CheckOutcome ceiling(const Lesson& lesson, CheckContext& ctx) {
    const nlohmann::json& p = lesson.check_params;
    CheckOutcome out;
    std::vector<LabelledHeads> inputs = lesson_layers(lesson, {}, out);
    inputs.front().label = "lesson input";
    const int n = static_cast<int>(check_param(p, "n", 256)), H = static_cast<int>(check_param(p, "heads", 2)),
              d = static_cast<int>(check_param(p, "dim", 32));
    for (const std::string& id : p.value("scenarios", std::vector<std::string>{"local", "clustered"})) {
        inputs.push_back({"synthetic " + id, check_input(parse_scenario(id), n, H, d, 0)});
        out.input += "; synthetic " + id + " (n = " + std::to_string(n) + ", H = " + std::to_string(H) +
                     ", d = " + std::to_string(d) + ", seed 0)";
    }
    // Float rounding of the two log-sum-exps (or Frobenius norms) when a variant reaches its oracle exactly.
    const double tolerance = check_param(p, "tolerance", 1e-5);
    for (const LabelledHeads& in : inputs) {
        const FamilyMargins m = measure_input(lesson, ctx, in.label, in.heads, out, &in == &inputs.front());
        if (m.masked_worst.empty() || m.low_rank_worst.empty())  // an empty family would pass without a measurement
            throw Error("lesson " + lesson.id + ": its preset must show at least one masked and one low-rank variant "
                        "beside topk and svd");
        out.lines.push_back(check_line(in.label + ": each masked variant's ceiling (topk row by row at its keys per "
                                       "row) minus its mass_recall — lowest margin (" + m.masked_worst + ")",
                                       m.masked, -tolerance, true,
                                       "the k largest entries of a row hold the most mass any k entries can"));
        out.lines.push_back(check_line(in.label + ": query rows whose kept keys differ from their variant's definition at "
                                       "this n (window, sinks, blocks, forced lines) — most in one view (" +
                                       m.off_definition_worst + ")",
                                       double(m.off_definition), 0, false,
                                       "each mask keeps the keys its paper defines, no more, no fewer"));
        out.lines.push_back(check_line(in.label + ": the topk variant at k = the mask's most keys per query minus that "
                                       "ceiling — lowest margin (" + m.reaches_worst + ")",
                                       m.reaches, -tolerance, true,
                                       "topk keeps each row's k largest probabilities"));
        out.lines.push_back(check_line(in.label + ": each low-rank variant's rel_err_attn minus svd's at r = its "
                                       "rank bound — lowest margin (" + m.low_rank_worst + ")",
                                       m.low_rank, -tolerance, true,
                                       "Eckart–Young: no rank-r matrix is closer to P than P_r"));
    }
    return out;
}

}  // namespace

void add_ceiling_lesson_checks(std::map<std::string, LessonCheck>& checks) { checks["ceiling"] = ceiling; }

}  // namespace attnscope
