// attnscope — lesson checks of the kernel family and friends: FAVOR+ (Performer), linear attention as an RNN,
// Linformer × kernels, FNet's Fourier mixing, and Linformer's Table 3 measured for this program.
#include <cmath>
#include <numbers>

#include "core/bench/backend_clock.h"
#include "core/format.h"
#include "core/memory.h"
#include "core/variants/registry.h"
#include "core/lessons/check_util.h"

namespace attnscope {

namespace {

/// Mean metric of `performer` over seeds on one input.
double performer_error(CheckContext& ctx, const Heads& heads, const VariantRequest& base, const Assignments& sets,
                       int seeds, bool attn) {
    double sum = 0;
    for (int seed = 0; seed < seeds; ++seed) {
        Assignments a = sets;
        a.emplace_back("seed", std::to_string(seed));
        const RunResult r = check_run(ctx, heads, with_params(base, a), attn);
        sum += attn ? *r.metrics.rel_err_attn : *r.metrics.rel_err_out;
    }
    return sum / seeds;
}

/// The input with Q and K multiplied by `factor` (‖q‖·‖k‖ scales by factor²).
Heads scaled(Heads h, float factor) {
    for (int64_t i = 0; i < h.Q.size(); ++i) h.Q.data()[i] *= factor, h.K.data()[i] *= factor;
    return h;
}

CheckOutcome favor_plus(const Lesson& lesson, CheckContext& ctx) {
    const nlohmann::json& p = lesson.check_params;
    const int seeds = static_cast<int>(check_param(p, "seeds", 5));
    CheckOutcome out;
    const Heads unit = lesson_heads(lesson, out);
    const Heads half = scaled(unit, 0.5f);
    const Heads quarter = scaled(unit, 0.25f);
    out.input += "; the same input with Q, K × ½; " + std::to_string(seeds) + " feature seeds";
    const VariantRequest performer = preset_request(lesson, "performer");
    const std::string m = std::to_string(performer.params.get_int("features"));
    {  // the panel's own run (its feature seed): what its badges show beside the seeds' mean below
        const RunResult shown = check_run(ctx, unit, performer, true);
        out.screen.push_back({preset_view(lesson, "performer"), "rel_err_attn", shown.metrics.rel_err_attn.value_or(NAN)});
        out.screen.push_back({preset_view(lesson, "performer"), "rel_err_out", shown.metrics.rel_err_out.value_or(NAN)});
        out.notes.push_back("the performer panel's run (seed " +
                            performer.params.value_text(*find_param(find_variant("performer").info().params, "seed")) +
                            "): rel_err_attn " + format_significant(shown.metrics.rel_err_attn.value_or(NAN), 4) +
                            ", rel_err_out " + format_significant(shown.metrics.rel_err_out.value_or(NAN), 4));
    }
    // (a) Lemma 2: the estimator's variance grows like exp(‖q + k‖²): at unit scale the same m gives a far larger
    // error than at half scale. This is where FAVOR+ fails, shown rather than scaled away.
    const double err_unit = performer_error(ctx, unit, performer, {}, seeds, true);
    const double err_half = performer_error(ctx, half, performer, {}, seeds, true);
    out.notes.push_back("m = " + m + ", rel_err_attn at unit scale " + format_significant(err_unit, 4) +
                        ", with Q, K × ½ " + format_significant(err_half, 4));
    out.lines.push_back(check_line("unit-scale error over half-scale error (variance grows with ‖q‖·‖k‖)",
                                   err_unit / err_half, check_param(p, "min_scale_penalty", 3.0), true,
                                   "Lemma 2: MSE ∝ exp(‖q + k‖²)"));
    // (b) Orthogonal features lower the error at the same m where ‖q‖·‖k‖ is small (Q, K × ¼); the gain shrinks as
    // the inputs grow and at unit scale the variance of (a) swamps it: shown as notes, not claimed.
    const std::string m_orth = std::to_string(static_cast<int>(check_param(p, "orthogonal_features", 64)));
    for (const auto& [name, input] : {std::pair<std::string, const Heads*>{"unit scale", &unit}, {"Q, K × ½", &half}, {"Q, K × ¼", &quarter}}) {
        const double orth =
            performer_error(ctx, *input, performer, {{"orthogonal", "1"}, {"features", m_orth}}, seeds, true);
        const double iid = performer_error(ctx, *input, performer, {{"orthogonal", "0"}, {"features", m_orth}}, seeds, true);
        out.notes.push_back(name + ", m = " + m_orth + ": rel_err_attn orthogonal " + format_significant(orth, 4) + ", i.i.d. " +
                            format_significant(iid, 4) + " (ratio " + format_significant(orth / iid, 3) + ")");
        if (input == &quarter)
            out.lines.push_back(check_line(name + ": orthogonal over i.i.d. features, error ratio", orth / iid,
                                           check_param(p, "max_orthogonal_ratio", 0.97), false,
                                           "Theorem 2: orthogonal features reduce the MSE"));
    }
    // (c) Positive features estimate small softmax values far better than trigonometric ones, whose estimates of
    // small values swing around 0 (and go negative): mean relative error over the cells with P_ij < 1/n.
    {
        const RunResult exact = check_run(ctx, half, "full", {}, true);
        auto small_cell_error = [&](const char* kind) {
            double sum = 0;
            for (int seed = 0; seed < seeds; ++seed) {
                const RunResult r = check_run(ctx, half, with_params(performer, {{"kind", kind}, {"seed", std::to_string(seed)}}),
                                              true);
                double err = 0;
                int64_t cells = 0;
                const double small = 1.0 / half.n();
                for (int64_t c = 0; c < exact.P_eff->size(); ++c) {
                    const double pc = exact.P_eff->data()[c];
                    if (pc >= small || pc <= 0) continue;
                    err += std::fabs(r.P_eff->data()[c] - pc) / pc, ++cells;
                }
                sum += cells ? err / double(cells) / seeds : 0.0;
            }
            return sum;
        };
        const double pos = small_cell_error("positive"), trig = small_cell_error("trig");
        out.notes.push_back("Q, K × ½, cells with P_ij < 1/n: mean relative error positive " + format_significant(pos, 4) +
                            ", trigonometric " + format_significant(trig, 4));
        out.lines.push_back(check_line("small values (P_ij < 1/n): positive over trigonometric relative error", pos / trig,
                                       check_param(p, "max_positive_ratio", 0.5), false,
                                       "Lemma 2: positive features' error vanishes with the value; trig's does not"));
    }
    // (d) At a fixed m the output error does not grow with n.
    {
        std::vector<double> errs;
        for (int n : {256, 4096}) {
            const Heads h = scaled(check_input(ScenarioKind::Gaussian, n, 1, unit.d(), 3), 0.5f);
            errs.push_back(performer_error(ctx, h, performer, {}, 3, false));
            out.notes.push_back("Q, K × ½, n = " + std::to_string(n) + ": rel_err_out " + format_significant(errs.back(), 4));
        }
        out.lines.push_back(check_line("output error at n = 4096 over n = 256 (fixed m)", errs.back() / errs.front(),
                                       check_param(p, "max_growth_with_n", 1.25), false,
                                       "the estimate is unbiased for every n; its error depends on m"));
    }
    return out;
}

/// Decodes `tokens` tokens of head 0 of `heads` with the variant's decoder; returns the outputs (tokens, dv) and the
/// tracked bytes the decoder holds at the end (measured by the allocator).
std::pair<MatrixRM, int64_t> decode(const Variant& v, const Params& p, const Heads& heads, int tokens, int head) {
    const int d = heads.d(), dv = heads.dv();
    const int64_t before = memory_counters().live.load();
    std::unique_ptr<Decoder> decoder = v.make_decoder(d, dv, p);
    if (!decoder) throw Error(v.info().id + " has no token-by-token decoder");
    MatrixRM O(tokens, dv);
    for (int t = 0; t < tokens; ++t)
        decoder->step(heads.Q.head(head).row(t).data(), heads.K.head(head).row(t).data(), heads.V.head(head).row(t).data(),
                      O.row(t).data());
    return {std::move(O), memory_counters().live.load() - before};
}

CheckOutcome linear_rnn(const Lesson& lesson, CheckContext& ctx) {
    const nlohmann::json& p = lesson.check_params;
    CheckOutcome out;
    const Heads heads = lesson_heads(lesson, out);
    const VariantRequest linear = preset_request(lesson, "linear"), full = preset_request(lesson, "full");
    const Variant& lin = ctx.variant("linear");
    const Variant& exact = ctx.variant("full");
    const Params lin_p = lin.resolve(linear.params, heads.shape()), full_p = exact.resolve(full.params, heads.shape());
    // (a) The recurrent form gives the numbers of the parallel causal form.
    const RunResult parallel = check_run(ctx, heads, linear, false);
    out.screen.push_back({preset_view(lesson, "linear"), "rel_err_out", parallel.metrics.rel_err_out.value_or(NAN)});
    double num = 0, den = 0;
    for (int h = 0; h < heads.heads(); ++h) {
        const MatrixRM rnn = decode(lin, lin_p, heads, heads.n(), h).first;
        num += (rnn - parallel.O.head(h)).squaredNorm();
        den += rnn.squaredNorm();
    }
    out.lines.push_back(check_line("token-by-token recurrence against the parallel causal form: relative difference",
                                   std::sqrt(num / den), 1e-5, false, "§3.4: the same computation, as an RNN"));
    // (b) The state: constant for the RNN, growing for softmax's key-value cache (bytes measured by the allocator).
    const int short_n = static_cast<int>(check_param(p, "short_context", 512)),
              long_n = static_cast<int>(check_param(p, "long_context", 4096));
    const Heads long_input = check_input(ScenarioKind::Gaussian, long_n, 1, heads.d(), 1);
    const int64_t lin_short = decode(lin, lin_p, long_input, short_n, 0).second;
    const int64_t lin_long = decode(lin, lin_p, long_input, long_n, 0).second;
    const int64_t kv_short = decode(exact, full_p, long_input, short_n, 0).second;
    const int64_t kv_long = decode(exact, full_p, long_input, long_n, 0).second;
    out.notes.push_back("bytes kept after " + std::to_string(short_n) + " → " + std::to_string(long_n) +
                        " tokens: linear state " + std::to_string(lin_short) + " → " + std::to_string(lin_long) +
                        ", softmax key-value cache " + std::to_string(kv_short) + " → " + std::to_string(kv_long));
    out.lines.push_back(check_line("linear: state bytes after " + std::to_string(long_n) + " tokens over after " +
                                       std::to_string(short_n),
                                   double(lin_long) / double(lin_short), 1.0, false,
                                   "constant memory per generated token"));
    out.lines.push_back(check_line("softmax: key-value cache bytes after " + std::to_string(long_n) + " tokens over after " +
                                       std::to_string(short_n),
                                   double(kv_long) / double(kv_short), 0.5 * long_n / short_n, true,
                                   "the cache grows with the context"));
    // (c) Time: decoding 8× the tokens costs 8× for the RNN, ~64× for the cache (every step re-reads it).
    const PairedRatio lin_t = paired_backend_ratio(ctx.backend, [&] { decode(lin, lin_p, long_input, short_n, 0); },
                                                   [&] { decode(lin, lin_p, long_input, long_n, 0); }, 5);
    const PairedRatio kv_t = paired_backend_ratio(ctx.backend, [&] { decode(exact, full_p, long_input, short_n, 0); },
                                                  [&] { decode(exact, full_p, long_input, long_n, 0); }, 5);
    const std::string tokens_a = std::to_string(short_n) + " tokens", tokens_b = std::to_string(long_n) + " tokens";
    out.notes.push_back("decoding with linear attention: " + paired_timing_note(lin_t, tokens_a, tokens_b, ctx.backend) +
                        "; with softmax's KV cache: " + paired_timing_note(kv_t, tokens_a, tokens_b, ctx.backend));
    const double growth = double(long_n) / short_n;
    out.lines.push_back(check_line("linear: decoding time per token, long context over short", lin_t.ratio / growth,
                                   check_param(p, "max_linear_time_growth", 1.6), false, "constant time per token"));
    out.lines.push_back(check_line("softmax: decoding time per token, long context over short", kv_t.ratio / growth,
                                   check_param(p, "min_softmax_time_growth", 3.0), true,
                                   "exact attention re-reads all i keys at step i"));
    return out;
}

/// Share of the entries of P̃ below zero.
double negative_share(const Tensor3& P) {
    int64_t negative = 0;
    for (int64_t c = 0; c < P.size(); ++c) negative += P.data()[c] < 0.0f;
    return double(negative) / double(P.size());
}

CheckOutcome linformer_kernels(const Lesson& lesson, CheckContext& ctx) {
    const nlohmann::json& p = lesson.check_params;
    CheckOutcome out;
    const Heads heads = lesson_heads(lesson, out);
    const VariantRequest combined = preset_request(lesson, "linformer"), linear = preset_request(lesson, "linear");
    // (a) With a signed E the similarities φ(q)ᵀ(Eφ(K))_t turn negative; with the pooling E they cannot.
    const RunResult random = check_run(ctx, heads, with_params(combined, {{"projection", "random"}}), true);
    const RunResult pooled = check_run(ctx, heads, with_params(combined, {{"projection", "pool"}}), true);
    const double neg_random = negative_share(*random.P_eff), neg_pooled = negative_share(*pooled.P_eff);
    if (combined.params.value_text(*find_param(find_variant("linformer").info().params, "projection")) == "random")
        out.screen.push_back({preset_view(lesson, "linformer"), "rel_err_out", random.metrics.rel_err_out.value_or(NAN)});
    out.notes.push_back("share of negative entries of P̃: random E " + format_significant(neg_random, 3) + ", pooled E " +
                        format_significant(neg_pooled, 3) + "; rel_err_out against softmax attention: random " +
                        format_significant(random.metrics.rel_err_out.value_or(0), 3) + ", pooled " +
                        format_significant(pooled.metrics.rel_err_out.value_or(0), 3));
    out.lines.push_back(check_line("random E: share of P̃'s entries below 0 (not a distribution)", neg_random,
                                   check_param(p, "min_negative_share", 0.1), true,
                                   "E has entries of both signs: Eφ(K) can be negative"));
    out.lines.push_back(check_line("pooled E: share of P̃'s entries below 0", neg_pooled, 0.0, false,
                                   "a non-negative E keeps the similarities non-negative"));
    // (b) No gain in cost: linear attention is already linear in n; a dense k×n projection E only adds O(n·k·d).
    // (A pooling E is cheaper — a segment mean — but it is the random, general E the combination is about.)
    const int n = static_cast<int>(check_param(p, "timing_n", 4096));
    const Heads big = check_input(ScenarioKind::Gaussian, n, heads.heads(), heads.d(), 0);
    const DeviceInputsScope kept(ctx.backend, inputs_of({&big}));
    const PairedRatio t = paired_backend_ratio(ctx.backend, [&] { run_for_cost(ctx, big, linear); },
                                               [&] { run_for_cost(ctx, big, with_params(combined, {{"projection", "random"}})); });
    out.notes.push_back("n = " + std::to_string(n) + ": " +
                        paired_timing_note(t, "linear", "Linformer × kernel (random E)", ctx.backend));
    out.lines.push_back(check_line("n = " + std::to_string(n) + ": Linformer × kernel " + std::string(backend_time_name(ctx.backend)) + " over linear attention's "
                                   "(no gain when ≥ 1)",
                                   t.ratio, check_param(p, "min_time_ratio", 1.2), true,
                                   "both O(n); the projection adds O(n·k·d)"));
    return out;
}

CheckOutcome fnet_dft(const Lesson& lesson, CheckContext& ctx) {
    const nlohmann::json& p = lesson.check_params;
    CheckOutcome out;
    const Heads heads = lesson_heads(lesson, out);
    const RunResult r = check_run(ctx, heads, preset_request(lesson, "fnet"), true);
    out.screen.push_back({preset_view(lesson, "fnet"), "rel_err_out", r.metrics.rel_err_out.value_or(NAN)});
    if (!r.P_eff || r.structure.display_matrices.empty())
        throw Error("fnet showed no mixing matrices (C_n as P̃ and S_n): the lesson's identity has nothing to test");
    const Tensor3& S = r.structure.display_matrices.front().matrix;
    const int n = heads.n();
    // (a) Y = C_n·Re(X·F_d) + S_n·Im(X·F_d) with the two matrices the run shows, on the run's own X (= V here).
    double num = 0, num_cos = 0, den = 0;
    for (int h = 0; h < r.O.heads(); ++h) {
        const ConstMatView X = heads.V.head(h);
        const int c = static_cast<int>(X.cols());
        MatrixRM A(n, c), B(n, c);
        for (int a = 0; a < n; ++a)
            for (int j = 0; j < c; ++j) {
                double re = 0, im = 0;
                for (int b = 0; b < c; ++b) {
                    const double angle = 2.0 * std::numbers::pi * double(int64_t(j) * b % c) / c;
                    re += X(a, b) * std::cos(angle), im -= X(a, b) * std::sin(angle);
                }
                A(a, j) = float(re), B(a, j) = float(im);
            }
        const MatrixRM both = r.P_eff->head(h) * A + S.head(h) * B, cos_only = r.P_eff->head(h) * A;
        num += (both - r.O.head(h)).squaredNorm(), num_cos += (cos_only - r.O.head(h)).squaredNorm();
        den += r.O.head(h).squaredNorm();
    }
    out.lines.push_back(check_line("‖Y − (C_n·Re(XF_d) + S_n·Im(XF_d))‖ / ‖Y‖ on the run's data", std::sqrt(num / den),
                                   1e-4, false, "Y = Re(F_n·X·F_d) (§3.1)"));
    out.lines.push_back(check_line("share of Y that C_n = cos(2πij/n) alone misses", std::sqrt(num_cos / den), 0.2, true,
                                   "the mixing is the pair C_n, S_n, not the cosine alone"));
    // (b) O(n log n): fnet's time for 8× the length against dense n×n mixing with the same two matrices.
    const int small_n = static_cast<int>(check_param(p, "small_n", 512)), large_n = 8 * small_n;
    const Heads small = check_input(ScenarioKind::Gaussian, small_n, 1, heads.d(), 0),
                large = check_input(ScenarioKind::Gaussian, large_n, 1, heads.d(), 0);
    const VariantRequest fnet = preset_request(lesson, "fnet");
    const DeviceInputsScope kept(ctx.backend, inputs_of({&small, &large}));
    const PairedRatio f = paired_backend_ratio(ctx.backend, [&] { run_for_cost(ctx, small, fnet); },
                                                 [&] { run_for_cost(ctx, large, fnet); });
    // Dense mixing at the large n: Y = C_n·A + S_n·B by two n×n GEMMs, with A + iB = X·F_d already given (what FNet
    // would cost without the FFT along the sequence).
    Tensor3 C(1, large_n, large_n), Sn(1, large_n, large_n), A(1, large_n, large.dv()), B(1, large_n, large.dv());
    for (int i = 0; i < large_n; ++i)
        for (int j = 0; j < large_n; ++j) {
            const double angle = 2.0 * std::numbers::pi * double(int64_t(i) * j % large_n) / large_n;
            C.at(0, i, j) = float(std::cos(angle)), Sn.at(0, i, j) = float(std::sin(angle));
        }
    A.head(0) = large.V.head(0), B.head(0) = large.V.head(0);  // the cost, not the values, is compared here
    Tensor3 Y(1, large_n, large.dv());
    const PairedRatio vs_dense = paired_backend_ratio(ctx.backend, [&] { run_for_cost(ctx, large, fnet); },
                                                      [&] {
                                                          ctx.backend.gemm(C, false, A, false, 1.0f, 0.0f, Y);
                                                          ctx.backend.gemm(Sn, false, B, false, 1.0f, 1.0f, Y);
                                                      });
    out.notes.push_back("fnet: " + paired_timing_note(f, "n = " + std::to_string(small_n), "n = " + std::to_string(large_n),
                                                      ctx.backend) +
                        "; at n = " + std::to_string(large_n) + ": " +
                        paired_timing_note(vs_dense, "fnet", "dense mixing (two n×n GEMMs)", ctx.backend));
    out.lines.push_back(check_line("fnet: " + std::string(backend_time_name(ctx.backend)) + " for 8× the length (n log n ≈ 9–10, n² = 64)", f.ratio,
                                   check_param(p, "max_time_growth", 20.0), false, "O(n log n) by the FFT"));
    out.lines.push_back(check_line("n = " + std::to_string(large_n) + ": dense mixing's " + std::string(backend_time_name(ctx.backend)) + " over fnet's",
                                   vs_dense.ratio, check_param(p, "min_speedup_vs_dense", 3.0), true,
                                   "faster than attention at long inputs (Table 2)"));
    return out;
}

CheckOutcome linformer_table3(const Lesson& lesson, CheckContext& ctx) {
    const nlohmann::json& p = lesson.check_params;
    CheckOutcome out;
    const Heads heads = lesson_heads(lesson, out);
    const VariantRequest full = preset_request(lesson, "full"), linformer = preset_request(lesson, "linformer");
    const DeviceInputsScope kept(ctx.backend, inputs_of({&heads}));
    const PairedRatio t = paired_backend_ratio(ctx.backend, [&] { run_for_cost(ctx, heads, linformer); },
                                               [&] { run_for_cost(ctx, heads, full); });
    const int64_t full_peak = run_for_cost(ctx, heads, full).cost.peak_bytes;
    const int64_t lin_peak = run_for_cost(ctx, heads, linformer).cost.peak_bytes;
    out.screen.push_back({preset_view(lesson, "full"), "memory", double(full_peak)});
    out.screen.push_back({preset_view(lesson, "linformer"), "memory", double(lin_peak)});
    const std::string k = std::to_string(linformer.params.get_int("k"));
    out.notes.push_back("n = " + std::to_string(heads.n()) + ", k = " + k + ": " +
                        paired_timing_note(t, "linformer", "full", ctx.backend) + "; peak " +
                        format_significant(lin_peak / 1048576.0, 4) + " vs " + format_significant(full_peak / 1048576.0, 4) +
                        " MiB tracked. The whole table: attnscope bench --linformer-table (docs/PERFORMANCE.md)");
    out.lines.push_back(check_line("time saved: full's " + std::string(backend_time_name(ctx.backend)) + " over linformer's (n = " + std::to_string(heads.n()) +
                                       ", k = " + k + ")",
                                   t.ratio, check_param(p, "min_time_saved", 2.0), true,
                                   p.value("paper_time", std::string("Table 3"))));
    out.lines.push_back(check_line("memory saved: full's tracked peak over linformer's", double(full_peak) / lin_peak,
                                   check_param(p, "min_memory_saved", 6.0), true,
                                   p.value("paper_memory", std::string("Table 3"))));
    return out;
}

}  // namespace

void add_kernel_lesson_checks(std::map<std::string, LessonCheck>& checks) {
    checks["favor_plus"] = favor_plus;
    checks["linear_rnn"] = linear_rnn;
    checks["linformer_kernels"] = linformer_kernels;
    checks["fnet_dft"] = fnet_dft;
    checks["linformer_table3"] = linformer_table3;
}

}  // namespace attnscope
