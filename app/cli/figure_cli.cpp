// attnscope — figure jobs and files (see figure_cli.h).
#include "app/cli/figure_cli.h"

#include "core/data/utf8.h"
#include "core/data/text_model.h"
#include "core/figure/figure_views.h"
#include "core/figure/render.h"
#include "core/lessons/preset.h"
#include "core/session/session_file.h"

namespace attnscope::cli {

void add_figure_file_options(CLI::App& sub, FigureFileOptions& o) {
    sub.add_option("--out", o.outputs, "Figure file(s): .png and/or .svg (repeat for both)")->required();
    sub.add_option("--view", o.view, "Matrices: " + figure::figure_view_names(false, true) + "; charts: " +
                                          figure::figure_view_names(true) + ". Default: the session's toggles, else mask");
    sub.add_option("--theme", o.theme, "light or dark")->capture_default_str();
    sub.add_option("--size", o.size, "WIDTH or WIDTHxHEIGHT in logical pixels (height: as the panels need)")->capture_default_str();
    sub.add_option("--dpi", o.dpi, "PNG resolution: pixels = logical size × dpi / 96")->capture_default_str();
    sub.add_option("--view-head", o.view_head, "Head drawn in every panel (default: the session's, else 0)");
    sub.add_flag("--linear", o.linear, "Weights on a linear colour scale (default log10)");
    sub.add_option("--decades", o.decades, "Decades of the log colour scale (default 4, or the session's)");
    sub.add_option("--title", o.title, "Title above the panels (default: the input; 'none' for no title)");
    sub.add_option("--matrix-limit", o.matrix_limit, "Largest n whose n×n matrices are materialised")->capture_default_str();
    sub.add_option("--order", o.order, "Both matrix axes: natural, bucket (an lsh instance's sorted order, with bucket "
                                        "boundaries and strips) or clusters (the clustered scenario's groups); default: the "
                                        "session's, else natural");
    sub.add_option("--round", o.round, "The lsh round whose bucket order --order bucket and --view buckets show (default 0)");
}

void parse_figure_size(const std::string& text, float& width, float& height) {
    const size_t x = text.find('x');
    try {
        size_t used = 0;
        width = std::stof(text.substr(0, x), &used);
        if (used != (x == std::string::npos ? text.size() : x)) throw std::invalid_argument("trailing");
        height = 0;
        if (x != std::string::npos) {
            height = std::stof(text.substr(x + 1), &used);
            if (used != text.size() - x - 1) throw std::invalid_argument("trailing");
        }
    } catch (const std::exception&) {
        throw Error("--size '" + text + "' is not WIDTH or WIDTHxHEIGHT (e.g. 1600 or 1920x1080)");
    }
    if (!(width >= 320 && width <= 8000) || !(height == 0 || (height >= 200 && height <= 8000)))
        throw Error("--size '" + text + "' is outside 320…8000 wide and 200…8000 high");
}

std::string describe_loaded_input(const LoadedInput& in) {
    const Heads& h = in.heads;
    if (in.kind == InputKind::Text) {
        const bool decoder = resolve_model(in.model_dir).decoder;
        std::string words;
        if (decoder) {  // byte-level BPE pieces carry their own spaces
            for (size_t k = 0; k < h.tokens.size() && words.size() < 60; ++k) words += h.tokens[k];
            if (!words.empty() && words.front() == ' ') words.erase(0, 1);
        } else {
            for (size_t k = 1; k + 1 < h.tokens.size() && words.size() < 60; ++k) {
                const std::string& t = h.tokens[k];
                words += t.rfind("##", 0) == 0 ? t.substr(2) : (words.empty() ? "" : " ") + t;
            }
        }
        return "“" + words + (h.tokens.size() > 12 ? "…" : "") + "” — " + std::to_string(h.n()) + " tokens, " +
               (decoder ? "decoder" : "encoder") + " layer " + std::to_string(in.layer) +
               (in.head >= 0 ? ", head " + std::to_string(in.head) : std::string());
    }
    return h.source + ", n = " + std::to_string(h.n()) + ", H = " + std::to_string(h.heads()) + ", d = " + std::to_string(h.d());
}

FigureJob figure_job_from_options(const InputOptions& input, const std::vector<std::string>& variants,
                                  const std::vector<std::string>& sets, bool causal) {
    FigureJob job;
    job.requests = build_variant_requests(variants, sets, causal, causal_input(input));
    job.input = load_input_full(input);
    job.title = describe_loaded_input(job.input);
    if (job.input.kind == InputKind::Text) job.text = text_input_spec(input);
    job.make_input = seeded_inputs(input);
    return job;
}

FigureJob figure_job_from_session(const std::string& path, const std::vector<std::string>* variants) {
    // The session format's reader, the one the GUI's panels read these keys with: a session means the same here.
    SessionFile session = read_session_file(path);
    if (!session.setup_lesson.empty()) session = lesson_setup(session.setup_lesson);  // as the GUI opens it
    FigureJob job;
    job.requests = variants ? build_variant_requests(*variants, {}, false) : session.variants;
    if (job.requests.empty()) throw Error("the session '" + path + "' has no variants: add --variant");
    const InputSpec& in = session.input;
    InputInfo info;
    job.input.heads = build_input(in, &info);
    job.input.kind = in.mode == InputMode::Text      ? InputKind::Text
                     : in.mode == InputMode::Tensors ? InputKind::Tensors
                                                     : InputKind::Synthetic;
    job.input.layer = in.layer;
    job.input.truncated = info.truncated;
    if (in.mode == InputMode::Text) {  // the token ids and the model, which a sweep of embedding_cosine re-runs
        job.text = text_input_spec(in);
        job.input.model_dir = job.text->model_dir;
        job.input.token_ids = load_text_input(*job.text).token_ids;
    }
    job.title = describe_loaded_input(job.input);
    const SessionView& v = session.view;
    job.view = v.show_diff ? figure::View::Difference : v.show_mask ? figure::View::Mask : figure::View::Weights;
    job.head = v.head;
    job.log_scale = v.log_scale;
    job.decades = v.decades;
    job.order = v.order;
    job.order_round = v.order_round;
    job.make_input = [in](uint64_t seed, int n) {
        InputSpec spec = in;
        spec.scenario.seed = in.scenario.seed + seed;
        if (n > 0) spec.scenario.n = n;
        return build_input(spec);
    };
    return job;
}

figure::RunFigureOptions run_figure_options(const FigureJob& job, const FigureFileOptions& o) {
    figure::RunFigureOptions f;
    f.view = !o.view.empty() ? figure::parse_view(o.view) : job.view.value_or(figure::View::Mask);
    f.theme = figure::parse_theme(o.theme);
    parse_figure_size(o.size, f.width, f.height);
    if (!(o.dpi >= 48 && o.dpi <= 1200)) throw Error("--dpi " + std::to_string(o.dpi) + " is outside 48…1200");
    if (o.decades < 0 || o.decades > 12) throw Error("--decades must be in 1…12");
    f.head = o.view_head >= 0 ? o.view_head : job.head.value_or(0);
    // Text --head H holds that one head: titles and metric lines name it H, as the encoder does.
    if (job.input.kind == InputKind::Text && job.input.head >= 0) f.head_number = job.input.head;
    f.log_scale = o.linear ? false : job.log_scale.value_or(true);
    f.decades = o.decades > 0 ? float(o.decades) : job.decades.value_or(4.0f);
    f.title = o.title == "none" ? std::string() : o.title.empty() ? job.title : o.title;
    utf8_decode(f.title, "--title");  // throws naming the option on invalid UTF-8
    f.order = !o.order.empty() ? parse_display_order(o.order, "--order") : job.order.value_or(DisplayOrder::Positions);
    f.order_round = o.round >= 0 ? o.round : job.order_round.value_or(0);
    if (f.head >= job.input.heads.heads())
        throw Error("--view-head " + std::to_string(f.head) + " does not exist: the input has heads 0…" +
                    std::to_string(job.input.heads.heads() - 1));
    return f;
}

std::vector<std::string> write_figure_files(const figure::Canvas& canvas, const FigureFileOptions& o) {
    std::vector<std::string> written;
    for (const std::string& path : o.outputs) {
        figure::write_canvas(path, canvas, float(o.dpi / 96.0));
        written.push_back(path);
    }
    return written;
}

std::vector<std::string> write_run_figures(const FigureJob& job, const FigureFileOptions& o, Backend& backend) {
    const figure::RunFigureOptions f = run_figure_options(job, o);
    const Heads& heads = job.input.heads;
    if (heads.n() > o.matrix_limit)
        throw Error("n = " + std::to_string(heads.n()) + " is above --matrix-limit " + std::to_string(o.matrix_limit) +
                    ": a figure draws n×n matrices; raise --matrix-limit or choose a smaller n");
    ReferenceCache refs(heads, true);
    RunOptions options;
    options.explain = true;
    options.max_matrix_n = o.matrix_limit;
    std::vector<RunResult> results;
    for (const VariantRequest& request : job.requests) results.push_back(run_variant(heads, request, options, backend, &refs));
    std::map<bool, Tensor3> exact;
    const figure::ExactMatrix exact_of = [&](bool causal) -> const Tensor3* {
        auto it = exact.find(causal);
        if (it == exact.end()) {
            refs.get(causal, backend);
            std::optional<Tensor3> P = refs.take_P(causal);
            if (!P) return nullptr;
            it = exact.emplace(causal, std::move(*P)).first;
        }
        return &it->second;
    };
    return write_figure_files(figure::layout_figure(figure::figure_of_runs(heads, results, f, exact_of)), o);
}

}  // namespace attnscope::cli
