// attnscope — lesson check "streaming_llm" (StreamingLLM, Xiao et al. 2023, §3 and Figure 3): the decoder's perplexity
// on the lesson's long text with a cache of the w most recent tokens alone, with s sink tokens at cache positions (the
// paper's rule) and at text positions (a mask), full attention, and recomputing each window from scratch on a sample of
// positions. The claims are the paper's, as ratios measured here: the window alone degrades once the first tokens
// leave it; the sinks win back most of that loss and come close to full attention; trained layers put much of every
// row on the first tokens.
#include <algorithm>

#include "core/data/model_paths.h"
#include "core/data/text_input.h"
#include "core/data/text_model.h"
#include "core/format.h"
#include "core/lessons/check_util.h"
#include "core/lessons/preset.h"
#include "core/session/streaming_view.h"

namespace attnscope {

namespace {

CheckOutcome streaming_llm(const Lesson& lesson, CheckContext& ctx) {
    const nlohmann::json& p = lesson.check_params;
    CheckOutcome out;
    const InputSpec input = preset_input_spec(lesson.preset);
    const ModelChoice model = resolve_model(input.model_dir);
    if (input.mode != InputMode::Text || !model.decoder)
        throw Error("lesson " + lesson.id + ": its preset input must be a decoder's text (\"model_dir\": \"smollm2\")");
    const StreamingSettings settings = streaming_settings_from_json(
        lesson.preset.value("streaming", nlohmann::json::object()), "lesson " + lesson.id + "'s preset 'streaming'");
    const auto decoder = load_decoder_model(model.path);
    const std::vector<int> ids = tokenize_text(input.text, model.path);
    out.input = describe_input(input) + ", " + std::to_string(ids.size()) + " tokens, windows " + settings.windows +
                ", " + std::to_string(settings.sinks) + " sinks";
    const std::shared_ptr<const StreamingTable> table = remembered_streaming(
        decoder->decoder, ids, parse_window_list(settings.windows, "windows"), settings.sinks, settings.recompute_samples,
        [&ctx](const std::string&) {
            if (ctx.cancelled && ctx.cancelled()) throw CheckCancelled();
            return true;
        });
    const StreamingTable& t = *table;
    for (const auto& [name, value] : streaming_named_values(t)) out.screen.push_back({-1, name, value});
    const std::string s = std::to_string(t.sinks);
    double window_ratio = 1e300, restored = 1e300;
    std::string window_at, restored_at;
    for (const StreamingRow& r : t.rows) {
        const std::string w = "w = " + std::to_string(r.window);
        std::string note = w + ": perplexity window alone " + format_significant(r.window_only, 4) + ", " + s +
                           " sinks at cache positions " + format_significant(r.sinks_cache, 4) + ", at text positions " +
                           format_significant(r.sinks_text, 4) + ", full attention " + format_significant(t.full, 4);
        if (!t.recompute_positions.empty())
            note += "; recomputed windows " + format_significant(r.recompute, 4) + " against full attention's " +
                    format_significant(r.full_at_sampled, 4) + " on the same " +
                    std::to_string(t.recompute_positions.size()) + " sampled positions";
        out.notes.push_back(note);
        if (const double ratio = r.window_only / t.full; ratio < window_ratio) window_ratio = ratio, window_at = w;
        // The share of what the window alone lost that the sinks win back: 1 = all of it, 0 = none.
        const double share = (r.window_only - r.sinks_cache) / std::max(1e-12, r.window_only - t.full);
        if (share < restored) restored = share, restored_at = w;
    }
    const StreamingRow& widest = *std::max_element(t.rows.begin(), t.rows.end(),
                                                   [](const StreamingRow& a, const StreamingRow& b) { return a.window < b.window; });
    const int from = static_cast<int>(check_param(p, "claim_from_layer", 0));
    if (from < 0 || from >= int(t.sink_mass.size()))
        throw Error("lesson " + lesson.id + ": claim_from_layer " + std::to_string(from) + " is not a layer of the decoder");
    double mass = 0;
    for (size_t l = size_t(from); l < t.sink_mass.size(); ++l) mass += t.sink_mass[l];
    mass /= double(t.sink_mass.size() - size_t(from));
    out.lines.push_back(check_line("the window alone: perplexity ÷ full attention's, lowest over windows (" + window_at + ")",
                                   window_ratio, check_param(p, "min_window_over_full", 1.3), true,
                                   "§3.1, Fig. 3: window attention's perplexity rises sharply once the initial tokens "
                                   "are evicted"));
    out.lines.push_back(check_line(s + " sinks at cache positions win back this share of the window's lost perplexity, "
                                   "(window − sinks) ÷ (window − full), lowest over windows (" + restored_at + ")",
                                   restored, check_param(p, "min_restored_share", 0.7), true,
                                   "Table 1: 4 initial + 1020 recent tokens restore the perplexity 1024 recent tokens lose"));
    out.lines.push_back(check_line(s + " sinks at cache positions: perplexity ÷ full attention's at the widest window (w = " +
                                       std::to_string(widest.window) + ")",
                                   widest.sinks_cache / t.full, check_param(p, "max_sinks_over_full", 1.15), false,
                                   "Fig. 3: StreamingLLM's perplexity stays close to the recomputed windows' baseline"));
    out.lines.push_back(check_line("exact attention on the first " + s + " tokens, mean over layers " +
                                       std::to_string(from) + "-" + std::to_string(t.sink_mass.size() - 1) +
                                       ", heads and rows",
                                   mass, check_param(p, "min_sink_mass", 0.25), true,
                                   "Fig. 2: beyond the bottom two layers, heads attend heavily to the initial token"));
    return out;
}

}  // namespace

void add_streaming_lesson_checks(std::map<std::string, LessonCheck>& checks) { checks["streaming_llm"] = streaming_llm; }

}  // namespace attnscope
