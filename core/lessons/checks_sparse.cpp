// attnscope — lesson checks of the sparse-pattern family: two-step reachability of factorised heads (Sparse
// Transformer), windows + globals + random blocks (Longformer, BigBird), reusing the cached memory
// (Transformer-XL). Each measures the preset's own variants on the preset's own input.
#include <cmath>

#include "core/analysis/reachability.h"
#include "core/bench/backend_clock.h"
#include "core/format.h"
#include "core/variants/registry.h"
#include "core/lessons/check_util.h"
#include "core/lessons/preset.h"

namespace attnscope {

namespace {

/// Reachability of the union of the heads' masks of a variant run; a run without a mask scores every cell.
Reachability union_reachability(const RunResult& r, int steps, bool causal) {
    if (r.structure.mask) return compute_reachability(mask_adjacency(*r.structure.mask, -1), steps, causal);
    ReasonMask dense;
    dense.heads = 1, dense.n = r.O.rows();
    dense.cells.assign(size_t(dense.n) * dense.n, static_cast<uint8_t>(Reason::Dense));
    return compute_reachability(mask_adjacency(dense, -1), steps, causal);
}

CheckOutcome factorised_two_steps(const Lesson& lesson, CheckContext& ctx) {
    CheckOutcome out;
    const Heads heads = lesson_heads(lesson, out);
    const double max_density = check_param(lesson.check_params, "max_density", 0.4);
    for (const std::string id : {"strided", "fixed"}) {
        const RunResult r = check_run(ctx, heads, preset_request(lesson, id), true);
        out.screen.push_back({preset_view(lesson, id), "density", r.metrics.density.value_or(NAN)});  // the panel's run
        const Reachability reach = union_reachability(r, 2, true);
        out.notes.push_back(id + " (" + r.params.value_text(*find_param(find_variant(id).info().params, "head_pattern")) +
                            " heads): density " + format_percent(r.metrics.density.value_or(0), 3) + ", one step " +
                            "reaches " + format_percent(reach.reached_fraction[0], 3) + " of the pairs j ≤ i, two " +
                            "steps " + format_percent(reach.reached_fraction[1], 3));
        out.lines.push_back(check_line(id + ": share of pairs j ≤ i reachable in two steps through the heads' masks",
                                       reach.reached_fraction[1], 1.0, true,
                                       "every position reaches every earlier one in two steps (§4.2)"));
        out.lines.push_back(check_line(id + ": share of causal cells scored (density; dense attention: 1)",
                                       r.metrics.density.value_or(1.0), max_density, false, "O(n·√n) cells"));
    }
    return out;
}

CheckOutcome windows_globals(const Lesson& lesson, CheckContext& ctx) {
    CheckOutcome out;
    const Heads heads = lesson_heads(lesson, out);
    const VariantRequest longformer = preset_request(lesson, "longformer");
    // (a) The window's cost grows linearly in n: its time at 4n over n, measured in alternation.
    {
        // Both sizes far above the CPU primitive's parallel threshold: CPU time then counts the same threads at both, and
        // OpenMP's spin-waits (which shrink when another process takes a core) are a small share of either run.
        const int n = static_cast<int>(check_param(lesson.check_params, "timing_n", 16384));
        const Heads small = check_input(ScenarioKind::Gaussian, n, 2, 32, 0),
                    large = check_input(ScenarioKind::Gaussian, 4 * n, 2, 32, 0);
        const VariantRequest window = with_params(longformer, {{"global", "none"}});
        const DeviceInputsScope kept(ctx.backend, inputs_of({&small, &large}));
        const PairedRatio t = paired_backend_ratio(ctx.backend, [&] { run_for_cost(ctx, small, window); },
                                                   [&] { run_for_cost(ctx, large, window); });
        out.notes.push_back("longformer window alone: " + paired_timing_note(t, "n = " + std::to_string(n),
                                                                              "n = " + std::to_string(4 * n), ctx.backend));
        out.lines.push_back(check_line("longformer: " + std::string(backend_time_name(ctx.backend)) + " when n grows 4× (linear ≈ 4, quadratic ≈ 16)",
                                       t.ratio,
                                       check_param(lesson.check_params, "max_time_ratio", 7.0), false,
                                       "O(n·w): linear in n"));
    }
    // (b) One global token puts any two tokens at most two hops apart; the window alone does not.
    {
        const RunResult with_global = check_run(ctx, heads, with_params(longformer, {{"global", "0"}}), true);
        const RunResult window_only = check_run(ctx, heads, with_params(longformer, {{"global", "none"}}), true);
        const double reach_global = union_reachability(with_global, 2, false).reached_fraction[1];
        const double reach_window = union_reachability(window_only, 2, false).reached_fraction[1];
        out.notes.push_back("longformer two-step reach: " + format_percent(reach_window, 3) + " with the window alone, " +
                            format_percent(reach_global, 3) + " with global token 0");
        out.lines.push_back(check_line("longformer + 1 global token: share of all pairs within two hops", reach_global,
                                       1.0, true, "global tokens connect every pair in two steps"));
    }
    // (c) On the hubs input the mass sits on a few keys far from most queries: a window alone misses it, global
    // tokens placed on those keys keep it.
    if (const InputSpec spec = preset_input_spec(lesson.preset);
        spec.mode == InputMode::Synthetic && spec.scenario.kind == ScenarioKind::Hubs) {
        std::string positions;
        for (int pos : scenario_hub_positions(spec.scenario)) positions += (positions.empty() ? "" : ",") + std::to_string(pos);
        const RunResult on_hubs = check_run(ctx, heads, with_params(longformer, {{"global", positions}}), false);
        const RunResult window_only = check_run(ctx, heads, with_params(longformer, {{"global", "none"}}), false);
        const double kept_hubs = on_hubs.metrics.mass_recall.value_or(1.0);  // no mask: every cell kept
        const double kept_window = window_only.metrics.mass_recall.value_or(1.0);
        out.notes.push_back("longformer on the hubs input: the window alone keeps " + format_percent(kept_window, 3) +
                            " of the exact attention mass, with global tokens on the hub keys " + positions + " " +
                            format_percent(kept_hubs, 3));
        if (positions == longformer.params.value_text(*find_param(find_variant("longformer").info().params, "global")))
            out.screen.push_back({preset_view(lesson, "longformer"), "mass_recall", kept_hubs});  // the panel's own run
        out.lines.push_back(check_line("longformer + globals on the hub keys: share of the exact mass kept", kept_hubs,
                                       check_param(lesson.check_params, "min_hub_mass", 0.6), true,
                                       "global tokens where the task puts its mass (§3.1)"));
        out.lines.push_back(check_line("the same over the window alone (mass kept)", kept_hubs / std::max(kept_window, 1e-12),
                                       check_param(lesson.check_params, "min_hub_gain", 2.0), true));
    }
    // (d) BigBird's random blocks shorten the paths (globals off, so only the random edges differ).
    {
        const VariantRequest bigbird = with_params(preset_request(lesson, "bigbird"), {{"global_blocks", "0"}});
        const Reachability r3 = union_reachability(check_run(ctx, heads, bigbird, true), 64, false);
        const Reachability r0 =
            union_reachability(check_run(ctx, heads, with_params(bigbird, {{"random_blocks", "0"}}), true), 64, false);
        out.notes.push_back("bigbird without globals: mean hops " + format_significant(r0.mean_hops, 3) +
                            " without random blocks, " + format_significant(r3.mean_hops, 3) + " with them (max " +
                            std::to_string(r0.max_hops) + " → " + std::to_string(r3.max_hops) + ")");
        out.lines.push_back(check_line("bigbird: mean hops with random blocks over without", r3.mean_hops / r0.mean_hops,
                                       0.8, false, "random edges shorten paths (§2, graph view)"));
    }
    return out;
}

/// Rows [begin, end) of every head of t.
Tensor3 rows_of(const Tensor3& t, int begin, int end) {
    Tensor3 out(t.heads(), end - begin, t.cols());
    for (int h = 0; h < t.heads(); ++h) out.head(h) = t.head(h).middleRows(begin, end - begin);
    return out;
}

CheckOutcome xl_memory(const Lesson& lesson, CheckContext& ctx) {
    CheckOutcome out;
    const Heads heads = lesson_heads(lesson, out);
    const VariantRequest xl = preset_request(lesson, "xl");
    const int n = heads.n(), L = xl.params.get_int("segment");
    record_screen(lesson, ctx, heads, {"xl"}, "density", out);  // the panel's pattern: the cells it scores
    std::vector<double> speedups;
    std::vector<int> memories;
    for (const auto& m : lesson.check_params.value("memories", std::vector<int>{256, 1024})) memories.push_back(m);
    double worst_diff = 0;
    for (int M : memories) {
        const VariantRequest cached = with_params(xl, {{"memory", std::to_string(M)}});
        // A vanilla model recomputes its whole context window [start − M, start + L) for every segment.
        std::vector<Heads> windows;
        std::vector<int> firsts;
        for (int start = 0; start < n; start += L) {
            const int s0 = std::max(0, start - M), e = std::min(n, start + L);
            Heads w;
            w.Q = rows_of(heads.Q, s0, e), w.K = rows_of(heads.K, s0, e), w.V = rows_of(heads.V, s0, e);
            windows.push_back(std::move(w));
            firsts.push_back(start - s0);
        }
        const VariantRequest vanilla = parse_variant_request("flash", {{"causal", "1"}});
        const PairedRatio t = paired_backend_ratio(ctx.backend, [&] { run_for_cost(ctx, heads, cached); },
                                                   [&] {
                                                       for (const Heads& w : windows) run_for_cost(ctx, w, vanilla);
                                                   });
        // Both modes give the segment's queries the same output.
        const RunResult c = run_for_cost(ctx, heads, cached);
        for (size_t seg = 0; seg < windows.size(); ++seg) {
            const RunResult v = run_for_cost(ctx, windows[seg], vanilla);
            const int rows = windows[seg].n() - firsts[seg], start = int(seg) * L;
            for (int h = 0; h < heads.heads(); ++h)
                worst_diff = std::max<double>(
                    worst_diff,
                    (c.O.head(h).middleRows(start, rows) - v.O.head(h).bottomRows(rows)).cwiseAbs().maxCoeff());
        }
        speedups.push_back(t.ratio);
        out.notes.push_back("memory M = " + std::to_string(M) + ", segment L = " + std::to_string(L) + ": " +
                            paired_timing_note(t, "cached", "recompute", ctx.backend) + " → " +
                            format_significant(t.ratio, 3) + "×");
    }
    out.lines.push_back(check_line("evaluation speed-up of reusing the cache at M = " + std::to_string(memories.back()) +
                                       " (recompute " + std::string(backend_time_name(ctx.backend)) + " over cached)",
                                   speedups.back(), check_param(lesson.check_params, "min_speedup", 3.0), true,
                                   "up to 1,800+× on a whole model (Dai et al. 2019, abstract)"));
    out.lines.push_back(check_line("the speed-up grows with the context: at M = " + std::to_string(memories.back()) +
                                       " over M = " + std::to_string(memories.front()),
                                   speedups.back() / speedups.front(), check_param(lesson.check_params, "min_growth", 1.5),
                                   true));
    out.lines.push_back(check_line("cached and recomputed outputs agree: max |ΔO|", worst_diff, 1e-4, false));
    return out;
}

}  // namespace

void add_sparse_lesson_checks(std::map<std::string, LessonCheck>& checks) {
    checks["factorised_two_steps"] = factorised_two_steps;
    checks["windows_globals"] = windows_globals;
    checks["xl_memory"] = xl_memory;
}

}  // namespace attnscope
