// attnscope — the Lessons menu and the Lesson window: a lesson's preset applied to the session (input,
// variants with parameters, panels brought to the front), its explanation beside the panels, and its numeric
// check (core/lessons) run as a job on the worker.
// Index: [SECTION] Check job  [SECTION] Presets  [SECTION] Menu and window  [SECTION] Session
#include <imgui.h>
#include <imgui_internal.h>  // DockBuilder: dock the window beside the panels at run time

#include <chrono>
#include <cmath>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "app/gui/app.h"
#include "core/data/model_paths.h"
#include "core/json_fields.h"
#include "app/gui/dock_layout.h"
#include "app/gui/panels.h"
#include "core/session/metric_sweep.h"
#include "core/session/session_file.h"
#include "core/data/samples.h"
#include "core/lessons/lessons.h"
#include "core/lessons/checks.h"
#include "core/lessons/preset.h"
#include "core/variants/registry.h"

namespace attnscope::gui {

// [SECTION] Check job

/// One run of a lesson's check as a worker job. Before each of its runs the worker computes a pending batch (the views
/// of an edit never wait for it) and a cancel stops it.
struct LessonCheckJob final : Job {
    const std::string lesson_id;
    explicit LessonCheckJob(const Lesson& lesson) : lesson_id(lesson.id), m_lesson(lesson) {}
    std::string kind() const override { return "lesson check"; }
    // The threads of the views it explains (interactive_cpu_threads): a run's tracked peak includes a scratch buffer
    // per thread, so only then are the check's numbers the badges' numbers. Its timings are CPU-time ratios.
    bool uses_all_cores() const override { return false; }
    /// The check's outcome once it ran (nullopt before and when it failed).
    std::optional<CheckOutcome> outcome() const {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_outcome;
    }
    /// Name of the backend it ran on (empty before it starts).
    std::string backend() const {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_backend;
    }

protected:
    void run(JobContext& ctx) override {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_backend = ctx.backend().name();
        }
        CheckContext context{ctx.backend(), {}, [&ctx] { return ctx.cancelled(); }, [&ctx] { ctx.between_steps(); }};
        try {
            CheckOutcome out = run_lesson_check(m_lesson, context);
            std::lock_guard<std::mutex> lock(m_mutex);
            m_outcome = std::move(out);
        } catch (const CheckCancelled&) {  // the job ends as cancelled (its context says so)
        }
    }

private:
    const Lesson& m_lesson;       // the lessons are static (core/lessons/lessons.h)
    mutable std::mutex m_mutex;   // guards the two fields below
    std::optional<CheckOutcome> m_outcome;
    std::string m_backend;
};

namespace {

// [SECTION] Presets

/// The window a preset's "panels" entry names; throws Error naming the valid ones.
const char* preset_window(const std::string& name) {
    for (const PanelEntry& p : panels())
        if (name == p.window) return p.window;
    std::string known;
    for (const PanelEntry& p : panels()) known += (known.empty() ? "" : ", ") + std::string(p.window);
    throw Error("panel '" + name + "' in the lesson preset is not a window of this build (" + known + ")");
}

/// Applies a preset (assets/lessons/*.json "preset") to the session — input, variants, view toggles, panels — the
/// way the lesson's check reads it (core/lessons/preset.h); nothing changes when it throws.
void apply_preset(App& app, const nlohmann::json& preset) {
    InputState input = app.input;  // keeps the materialise and view sizes
    if (preset.contains("input")) {
        const InputSpec spec = preset_input_spec(preset);
        input.spec.mode = spec.mode;
        // The lesson's model too (the encoder unless it names one): its text, layer and check are written for it.
        if (spec.mode == InputMode::Text)
            input.spec.text = spec.text, input.spec.layer = spec.layer, input.spec.truncate = spec.truncate,
            input.spec.model_dir = spec.model_dir;
        else input.spec.scenario = spec.scenario;
    }
    VariantsState vars = app.variants;
    vars.causal_default = input.spec.mode == InputMode::Text && resolve_model(input.spec.model_dir).decoder;
    if (preset.contains("variants")) {
        vars.slots.clear();
        for (VariantRequest& r : preset_variants(preset)) {
            vars.add(r.id);
            vars.slots.back().params = std::move(r.params);
        }
    }
    std::vector<std::string> focus;
    for (const auto& p : preset.value("panels", nlohmann::json::array())) focus.push_back(preset_window(p.get<std::string>()));
    MatrixViewState view;  // the lesson's view from the defaults: what its text names is switched on
    view.presentation = app.view.presentation, view.font_scale = app.view.font_scale;  // the room's, not the lesson's
    const nlohmann::json v = preset.value("view", nlohmann::json::object());
    const SessionView shown = session_view_from_json(preset, "the lesson preset's view");  // the session's reader
    view.show_diff = shown.show_diff, view.show_mask = shown.show_mask, view.log_scale = shown.log_scale;
    view.head = shown.head, view.decades = shown.decades;
    view.order = shown.order, view.order_round = shown.order_round;
    // A lesson's checks and thresholds are on means over heads: its badges show those, and say so.
    view.mean_badges = json_bool(v, "mean_badges", true, "the lesson preset");
    // A lesson that names the Performance panel may set its sweep ("performance": the session's keys; "run": true
    // measures its range on opening instead of the quick first look).
    if (preset.contains("performance")) panel("performance").load(app, preset);
    // A lesson that names the Streaming panel sets its measurement ("streaming": windows, sinks, recompute_samples).
    if (preset.contains("streaming")) panel("streaming").load(app, preset);
    app.input = input;
    app.variants = vars;
    app.view = view;
    app.spectrum.enabled = json_bool(v, "spectrum", app.spectrum.enabled, "the lesson preset");
    // The index the lesson's text reads the layers × heads map at (low-rank: n/4), else the panel's default.
    app.spectrum.grid_index = 0;
    app.spectrum.grid_fraction = json_number(v, "grid_fraction", 0.125, 1e-6, 1, "the lesson preset");
    app.spectrum.k = json_int(v, "spectrum_k", app.spectrum.k, 1, 1 << 20, "the lesson preset");  // the spectra's k line
    app.lsh.variant = 0;
    app.lesson.focus = focus;
    app.dirty = true;
}

/// Lesson text from JSON line arrays: single line breaks become spaces so the window wraps it to its width.
std::string flowing(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\n') {
            out += text[i];
        } else if (i + 1 < text.size() && text[i + 1] == '\n') {
            out += "\n\n";
            ++i;
        } else if (i + 1 < text.size()) {
            out += ' ';
        }
    }
    return out;
}

/// A small rotating arc drawn inline: the check is alive.
void spinner(float radius) {
    const ImVec2 pos = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    ImGui::Dummy(ImVec2(radius * 2 + 2, h));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 c(pos.x + radius + 1, pos.y + h * 0.5f);
    const float t = float(ImGui::GetTime()) * 6.0f;
    dl->PathArcTo(c, radius, t, t + 4.2f, 20);
    dl->PathStroke(ImGui::GetColorU32(ImGuiCol_PlotLinesHovered), 0, 2.5f);
}

void start_check(App& app) {
    const auto& running = app.lesson.check;
    if (running && !running->finished() && running->lesson_id == app.lesson.id && !running->cancel_requested())
        return;  // this lesson's check is on its way
    app.lesson.check = std::make_shared<LessonCheckJob>(find_lesson(app.lesson.id));
    app.runs.post_job(app.lesson.check);
}

/// The windows a lesson looks at: its preset's "panels" (Matrices when it names none).
std::vector<std::string> lesson_windows(const Lesson& lesson) {
    std::vector<std::string> large;
    for (const auto& p : lesson.preset.value("panels", nlohmann::json::array())) large.push_back(p.get<std::string>());
    if (large.empty()) large.push_back(panel("matrices").window);
    return large;
}

/// Gives the lesson its layout, unless a loaded session already docked the Lesson window (the user's own layout).
/// Returns false while the dockspace has no size yet (the first frame).
bool apply_lesson_layout(App& app, const Lesson& lesson) {
    const ImGuiID dockspace = main_dockspace();
    ImGuiDockNode* root = ImGui::DockBuilderGetNode(dockspace);
    if (!root || root->Size.x <= 0) return false;
    if (app.layout_loaded && app.lesson.layout_for.empty())
        if (ImGuiWindow* w = ImGui::FindWindowByName(kLessonWindow); w && w->DockNode) {
            ImGuiDockNode* node = w->DockNode;
            while (node->ParentNode) node = node->ParentNode;
            if (node->ID == dockspace) return app.lesson.layout_for = lesson.id, true;
        }
    // Presentation mode shows Matrices and the Lesson window only: the lesson goes below a row of a few wide matrices.
    const bool below = app.view.presentation &&
                       lesson_below_is_larger(int(preset_variants(lesson.preset).size()), ImGui::GetMainViewport()->WorkSize);
    build_lesson_layout(dockspace, lesson_windows(lesson), below);
    app.lesson.layout_for = lesson.id;
    app.lesson.layout_presentation = app.view.presentation;
    // The left column holds the panels the lesson does not look at; Variants is the one a reader changes first.
    app.lesson.focus.insert(app.lesson.focus.begin(), panel("variants").window);
    return true;
}

/// The view limits that show point `p` large: its columns (rows) widened to a tenth of the plot or more, a diagonal's
/// first stretch, a block with a margin.
void zoom_to(App& app, const LookAtPoint& p) {
    const int n = app.snap && app.snap->heads ? app.snap->heads->n() : app.view.fitted_n;
    if (n <= 0) return;
    MatrixViewState& vw = app.view;
    auto around = [&](int first, int last, double& lo, double& hi) {
        const double width = last - first + 1, span = std::min<double>(n, std::max(8.0 * width, n / 8.0));
        lo = std::clamp(first + width / 2 - span / 2, 0.0, n - span), hi = lo + span;
    };
    vw.x_min = 0, vw.x_max = n, vw.y_min = 0, vw.y_max = n;
    if (p.kind == LookAtPoint::Kind::Keys) around(p.first, p.last, vw.x_min, vw.x_max);
    else if (p.kind == LookAtPoint::Kind::Rows) around(p.first, p.last, vw.y_min, vw.y_max);
    else if (p.kind == LookAtPoint::Kind::Block) around(p.first, p.last, vw.x_min, vw.x_max), around(p.rows_first, p.rows_last, vw.y_min, vw.y_max);
    else if (p.kind == LookAtPoint::Kind::Diagonal) {
        const double span = std::min<double>(n, std::max(64, 4 * (p.last - p.first + 1) + 32));
        const double row0 = std::clamp(double(std::max(0, p.first)), 0.0, n - span);
        vw.y_min = row0, vw.y_max = row0 + span;
        vw.x_min = std::clamp(row0 - p.last - span / 4, 0.0, n - span), vw.x_max = vw.x_min + span;
    } else if (p.kind == LookAtPoint::Kind::Head) {
        vw.head = p.first;
    }
    if (p.on_head >= 0) vw.head = p.on_head;  // a head-specific feature is zoomed to in its head
    vw.fit_next = false;
}

/// The lesson's features with a button each that brings the views to it.
void draw_points(App& app, const Lesson& lesson) {
    if (lesson.points.empty()) return;
    ImGui::TextDisabled("outlined in the views; click to zoom there (Fit returns):");
    for (size_t k = 0; k < lesson.points.size(); ++k) {
        const LookAtPoint& p = lesson.points[k];
        ImGui::PushID(int(k));
        if (ImGui::SmallButton(p.kind == LookAtPoint::Kind::Head ? "show" : "zoom")) zoom_to(app, p);
        ImGui::SameLine();
        ImGui::TextWrapped("%s", p.label.c_str());
        ImGui::PopID();
    }
}

void draw_check(App& app) {
    LessonState& ls = app.lesson;
    const Lesson& lesson = find_lesson(ls.id);
    ImGui::SeparatorText("Numeric check");
    std::string params;
    for (auto it = lesson.check_params.begin(); it != lesson.check_params.end(); ++it)
        if (it.key() != "id") params += (params.empty() ? "" : ", ") + it.key() + " = " + it.value().dump();
    ImGui::TextDisabled("%s%s%s", lesson.check.c_str(), params.empty() ? "" : ": ", params.c_str());
    try {  // the panels above show this input: the check's main claims run on it
        ImGui::TextWrapped("Input of the check: %s (the input these panels show).",
                           describe_input(preset_input_spec(lesson.preset)).c_str());
    } catch (const Error& e) {
        ImGui::TextWrapped("The preset's input cannot be read: %s", e.what());
    }
    const bool mine = ls.check && ls.check->lesson_id == ls.id;
    const bool running = ls.check && !ls.check->finished();
    if (!running && ImGui::Button(mine ? "Run the check again" : "Run check")) start_check(app);
    if (!running)
        ImGui::SetItemTooltip("verify the paper's claim numerically in the background (the same check as "
                              "`attnscope lesson %s --check`); opening a lesson starts it", ls.id.c_str());
    if (running && ImGui::Button("Cancel check")) ls.check->cancel();
    if (running) {
        ImGui::SameLine();
        spinner(ImGui::GetTextLineHeight() * 0.4f);
        ImGui::SameLine();
        const double s = ls.check->seconds();
        if (mine && ls.check->state() == JobState::Queued) ImGui::Text("the check waits for the job before it…");
        else if (mine) ImGui::Text("running the check… %.0f s", s);
        else ImGui::Text("the check of lesson %s is still running… %.0f s", ls.check->lesson_id.c_str(), s);
        return;
    }
    if (!mine) return;
    const LessonCheckJob& job = *ls.check;
    if (job.state() == JobState::Cancelled) {
        ImGui::TextDisabled("The check was cancelled.");
        return;
    }
    if (const std::string error = job.error(); !error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.4f, 1));
        ImGui::TextWrapped("The check could not run: %s", error.c_str());
        ImGui::PopStyleColor();
        return;
    }
    const std::optional<CheckOutcome> outcome = job.outcome();
    if (!outcome) return;
    const CheckOutcome& out = *outcome;
    const ImVec4 pass(0.45f, 0.85f, 0.45f, 1), fail(1, 0.45f, 0.4f, 1);
    ImGui::SameLine();
    ImGui::TextColored(out.passed() ? pass : fail, out.passed() ? "claim holds" : "claim does NOT hold");
    ImGui::SameLine();
    ImGui::TextDisabled("(%s, %.1f s)", job.backend().c_str(), job.seconds());
    ImGui::TextDisabled("measured on %s", out.input.c_str());
    // One block per claim (a table's narrow columns wrapped every word in a docked window): the verdict and the
    // measured value against its bound, then the claim and the paper's own figure.
    for (const CheckLine& line : out.lines) {
        ImGui::Separator();
        ImGui::TextColored(line.passed ? pass : fail, "%s", line.passed ? "pass" : "FAIL");
        ImGui::SameLine();
        ImGui::TextColored(line.passed ? pass : fail, "%.4g", line.measured);
        ImGui::SameLine();
        ImGui::TextDisabled("(needs %s %.4g)", line.at_least ? "≥" : "≤", line.threshold);
        ImGui::TextWrapped("%s", line.claim.c_str());
        if (!line.paper.empty()) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
            ImGui::TextWrapped("paper: %s", line.paper.c_str());
            ImGui::PopStyleColor();
        }
    }
    if (!out.notes.empty()) ImGui::SeparatorText("measured along the way");
    for (const std::string& note : out.notes) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::Bullet();
        ImGui::TextWrapped("%s", note.c_str());
        ImGui::PopStyleColor();
    }
}

}  // namespace

// [SECTION] Menu and window

void apply_lesson(App& app, const std::string& id) {
    const Lesson& lesson = find_lesson(id);
    apply_preset(app, lesson.preset);
    // A check still running for the lesson shown before stops: its numbers would not be this screen's.
    if (app.lesson.check && !app.lesson.check->finished() && app.lesson.check->lesson_id != lesson.id) app.lesson.check->cancel();
    app.lesson.id = lesson.id;
    app.lesson.open = true;
    app.lesson.dock_pending = true;
    app.lesson.run_check_on_start = app.lesson.check_on_open;  // the screen shows the check's measurements
}

bool lesson_check_busy(const App& app) {
    return (app.lesson.check && !app.lesson.check->finished()) || app.lesson.run_check_on_start;
}

std::string lessons_status(const App& app) {
    std::string s;
    if (app.lesson.open && !app.lesson.id.empty()) {
        s = "lesson " + app.lesson.id + " shown";
        if (const auto& job = app.lesson.check; job && job->finished() && job->lesson_id == app.lesson.id) {
            const std::optional<CheckOutcome> outcome = job->outcome();
            if (!job->error().empty()) s += "; check could not run: " + job->error();
            else if (outcome) {
                int passed = 0;
                for (const CheckLine& l : outcome->lines) passed += l.passed;
                s += "; check " + std::string(outcome->passed() ? "passed" : "FAILED") + " (" + std::to_string(passed) +
                     "/" + std::to_string(outcome->lines.size()) + " claims)";
            }
        }
    }
    const std::string sweep = sweep_status(app);
    if (!sweep.empty()) s += (s.empty() ? "" : "; ") + sweep;
    return s;
}

void draw_lessons_menu(App& app) {
    if (!ImGui::BeginMenu("Lessons")) return;
    ImGui::TextDisabled("each lesson sets up the panels and explains what to look at");
    for (const Lesson& l : all_lessons())
        if (ImGui::MenuItem(l.title.c_str(), nullptr, app.lesson.open && app.lesson.id == l.id)) {
            try {
                apply_lesson(app, l.id);
            } catch (const std::exception& e) {
                app.exports.message = "lesson " + l.id + ": " + e.what(), app.exports.message_is_error = true;
            }
        }
    ImGui::Separator();
    if (ImGui::MenuItem("Sweep panel")) ImGui::SetWindowFocus(panel("sweep").window);
    ImGui::EndMenu();
}

void draw_lesson_panel(App& app) {
    LessonState& ls = app.lesson;
    if (!ls.open && !ls.layout_for.empty()) {  // the lesson was closed: the default layout again
        ls.layout_for.clear();
        build_default_layout(main_dockspace());
        if (ls.check && !ls.check->finished()) ls.check->cancel();
    }
    if (!ls.open || ls.id.empty()) return;
    if (ls.layout_for == ls.id && ls.layout_presentation != app.view.presentation) ls.dock_pending = true, ls.layout_for.clear();
    if (ls.dock_pending && (apply_lesson_layout(app, find_lesson(ls.id)) || app.frame > 30)) ls.dock_pending = false;
    // After the default layout's own focus on frame 2; one window per frame, because a dock node selects the
    // tab of the window focused while it updates.
    if (!ls.focus.empty() && app.frame >= 3) {
        ImGui::SetWindowFocus(ls.focus.front().c_str());
        ls.focus.erase(ls.focus.begin());
    }
    if (ls.run_check_on_start) {
        ls.run_check_on_start = false;
        start_check(app);
    }
    ImGui::SetNextWindowSize(ImVec2(420, 600), ImGuiCond_FirstUseEver);
    const bool visible = ImGui::Begin(kLessonWindow, &ls.open);
    if (!visible) {
        ImGui::End();
        return;
    }
    const Lesson& lesson = find_lesson(ls.id);
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.95f, 0.85f, 0.55f, 1));
    ImGui::TextWrapped("%s", lesson.title.c_str());
    ImGui::PopStyleColor();
    ImGui::Separator();
    ImGui::TextWrapped("%s", flowing(lesson.explanation).c_str());
    ImGui::Spacing();
    ImGui::SeparatorText("What to look at");
    ImGui::TextWrapped("%s", flowing(lesson.look_at).c_str());
    draw_points(app, lesson);
    if (ImGui::SmallButton("Apply the preset again")) apply_lesson(app, ls.id);
    ImGui::SetItemTooltip("restore the lesson's input, variants and panels after you changed them");
    draw_check(app);
    ImGui::End();
}

nlohmann::json lesson_check_json(const App& app) {
    nlohmann::json j;
    if (!app.lesson.open || app.lesson.id.empty()) return j;
    j["id"] = app.lesson.id;
    const auto& job = app.lesson.check;
    if (!job || job->lesson_id != app.lesson.id) return j;
    j["state"] = job_state_name(job->state());
    if (!job->error().empty()) j["error"] = job->error();
    if (const std::optional<CheckOutcome> out = job->outcome()) {
        j["passed"] = out->passed();
        for (const CheckLine& l : out->lines)
            j["lines"].push_back({{"claim", l.claim}, {"measured", l.measured}, {"passed", l.passed}});
        j["screen"] = nlohmann::json::array();
        for (const ScreenValue& v : out->screen) j["screen"].push_back({{"view", v.view}, {"metric", v.metric}, {"value", v.value}});
    }
    return j;
}

// [SECTION] Session

void lessons_to_json(const App& app, nlohmann::json& j) {
    if (app.lesson.open && !app.lesson.id.empty()) j["lesson"] = {{"id", app.lesson.id}};
}

void lessons_from_json(App& app, const nlohmann::json& j) {
    if (const std::string id = session_lesson_from_json(j); !id.empty()) {
        const auto& l = j.at("lesson");
        find_lesson(id);  // throws listing the ids
        if (session_means_lesson_setup(j)) apply_lesson(app, id);
        app.lesson.id = id;
        app.lesson.open = true;
        app.lesson.dock_pending = true;
        app.lesson.run_check_on_start = json_bool(l, "check", app.lesson.check_on_open, "the session's lesson");
    }
}

}  // namespace attnscope::gui
