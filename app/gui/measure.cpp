// attnscope — headless responsiveness measurements (see measure.h).
#include "app/gui/measure.h"

#include <algorithm>
#include <cstdio>
#include <thread>

#include <imgui.h>

#include "app/gui/app.h"
#include "core/bench/machine.h"
#include "core/bench/timing.h"
#include "core/cpu_isa.h"
#include "core/data/samples.h"
#include "core/data/text_input.h"
#include "core/variants/registry.h"

namespace attnscope::gui {

namespace {

/// The shared summary (median ≤ p95 ≤ max for any sample count) of float frame or latency times.
TimingStats stats_of(const std::vector<float>& v) { return summarize_times(std::vector<double>(v.begin(), v.end())); }

/// The six variants of the latency claim: exact, tiled exact, sparse, hashing, low-rank, kernel.
const char* const kLatencyVariants[] = {"full", "flash", "bigbird", "lsh", "linformer", "performer"};

/// The first line of every measurement: the hardware its figures come from.
void print_machine(const char* tag) {
    std::printf("%s: machine: %s, %u logical CPUs; CPU kernels compiled for %s\n", tag, cpu_model_name().c_str(),
                std::thread::hardware_concurrency(), kCpuIsaName);
}

}  // namespace

Measurement::Measurement(const GuiOptions& o) {
    if (o.measure_latency > 0) m_kind = Kind::Latency, m_count = o.measure_latency;
    else if (o.measure_pan > 0) m_kind = Kind::Pan, m_count = o.measure_pan;
    else if (o.measure_first_view > 0) m_kind = Kind::FirstView, m_count = o.measure_first_view, m_warmup = 0;
    m_screenshot = o.screenshot_path;
    m_use_session = !o.session_path.empty();
}

void Measurement::setup_latency(App& app) {
    // A text of at most 128 tokens: the sample texts, cut word by word until the tokenizer agrees.
    std::string text;
    for (const auto& s : sample_texts()) text += (text.empty() ? "" : " ") + s.text;
    text.resize(text.rfind(' ', 2000));  // far more than 127 tokens: the word-by-word cut below stays short
    try {
        for (;;) {
            m_tokens = int(tokenize_text(text, app.input.spec.model_dir).size());
            if (m_tokens <= 127 || text.empty()) break;  // 127 + the appended word = 128
            const size_t cut = text.find_last_of(' ');
            text.resize(cut == std::string::npos ? 0 : cut);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "measure-latency: text input unavailable: %s\n", e.what());
        m_status = 2;
        return;
    }
    m_text = text;
    app.input.spec.mode = InputMode::Text;
    app.input.spec.text = text;
    app.input.spec.truncate = false;
    app.variants.slots.clear();
    for (const char* id : kLatencyVariants) app.variants.add(id);
    app.dirty = true;
}

void Measurement::setup_first_view(App& app) {
    if (m_use_session) return;
    // n = 65536 (H = 1, d = 32, the local scenario): nothing is materialised (above 'materialise up to n'), so each
    // view is its variant's run, and the exact reference for the errors is one O(n²) pass after every view.
    auto& sc = app.input.spec.scenario;
    app.input.spec.mode = InputMode::Synthetic;
    sc.kind = ScenarioKind::Local, sc.n = 65536, sc.heads = 1, sc.dim = 32, sc.seed = 0;
    app.spectrum.enabled = false;
    app.variants.slots.clear();
    for (const char* id : {"flash", "longformer", "lsh", "linformer", "performer"}) app.variants.add(id);
    app.dirty = true;
}

bool Measurement::first_view_after_frame(App& app) {
    const auto& firsts = app.latency.first_view_ms;
    if (m_phase >= 1 && firsts.size() > m_first_view_sample + size_t(m_phase - 1) && m_first_shown_at < 0)
        m_first_shown_at = ImGui::GetTime();
    // The picture: 1.5 s after the first edit's first view, while the other views still compute.
    if (!m_screenshot.empty() && !m_shot_taken && m_first_shown_at >= 0 && ImGui::GetTime() - m_first_shown_at > 1.5) {
        app.captures.push_back({m_screenshot, ImVec4(0, 0, 0, 0)});
        m_shot_taken = true;
        const int done = app.snap->views_shown();
        std::printf("measure-first-view: screenshot %s with %d of %zu views finished\n", m_screenshot.c_str(), done,
                    app.snap->variants.size());
    }
    // The setup's own batch only has to start showing; each counted edit waits for all views (errors included).
    const bool setup_shown = m_phase == 0 && app.snap && !app.latency.first_view_ms.empty() && !app.dirty;
    if ((setup_shown || result_on_screen(app)) && m_phase < m_count) {
        if (m_phase == 0) m_first_view_sample = app.latency.first_view_ms.size();  // the setup's first view is not counted
        app.input.spec.scenario.seed += 1;  // a new input: every view and the reference are computed again
        app.dirty = true;
        ++m_phase;
        m_first_shown_at = -1;
        return false;
    }
    if (m_phase < m_count || !result_on_screen(app)) return false;
    const auto& all = app.latency.samples_ms;
    print_machine("measure-first-view");
    std::printf("measure-first-view: n = %d, H = %d, d = %d, %zu variants (", app.snap->heads ? app.snap->heads->n() : 0,
                app.snap->heads ? app.snap->heads->heads() : 0, app.snap->heads ? app.snap->heads->d() : 0,
                app.variants.slots.size());
    for (size_t k = 0; k < app.variants.slots.size(); ++k) std::printf("%s%s", k ? ", " : "", app.variants.slots[k].id.c_str());
    std::printf("), %d edits\n", m_count);
    for (size_t e = 0; e < size_t(m_count); ++e) {
        const size_t f = m_first_view_sample + e, a = all.size() - size_t(m_count) + e;
        std::printf("measure-first-view: edit %zu: first view %.2f s, all views (errors included) %.2f s\n", e + 1,
                    f < firsts.size() ? firsts[f] / 1000.0 : -1.0, a < all.size() ? all[a] / 1000.0 : -1.0);
    }
    std::printf("measure-first-view: worker stages of the last edit (wall / worker thread CPU):\n");
    for (const StageTime& t : app.snap->stages)
        std::printf("measure-first-view:   %-22s %9.1f ms / %9.1f ms\n", t.name.c_str(), t.wall_ms, t.cpu_ms);
    if (!app.snap->input_error.empty()) m_status = 3;
    return true;
}

void Measurement::setup_pan(App& app) {
    if (!m_use_session) {  // a synthetic n = 16384 input, materialised so the pooled view has a matrix to show
        auto& sc = app.input.spec.scenario;
        app.input.spec.mode = InputMode::Synthetic;
        sc.kind = ScenarioKind::Local, sc.n = 16384, sc.heads = 1, sc.dim = 32;
        app.input.max_matrix_n = 16384;
        app.input.view_size = 1024;
        app.spectrum.enabled = false;
        app.variants.slots.clear();
        app.variants.add("bigbird");
        app.variants.add("lsh");
        app.dirty = true;
    }
}

bool Measurement::result_on_screen(const App& app) const {
    return app.snap && app.snap->complete && app.snap->generation == app.runs.posted_generation() &&
           app.runs.state() != WorkerState::Running && !app.dirty && app.latency.pending.empty();
}

void Measurement::before_frame(App& app) {
    if (m_kind == Kind::None || m_status != 0) return;
    if (!m_setup) {
        m_setup = true;
        if (m_kind == Kind::Latency) setup_latency(app);
        else if (m_kind == Kind::FirstView) setup_first_view(app);
        else setup_pan(app);
        return;
    }
    if (m_kind == Kind::FirstView) return;  // edits are made after the frame (first_view_after_frame)
    if (m_kind == Kind::Latency) {
        // One edit at a time: the next one a few frames after the previous result reached the screen
        // (shorter than the layer-grid debounce, so that background job does not start in between).
        if (!result_on_screen(app) || m_quiet_frames < 3) return;
        if (m_phase == m_warmup)
            m_first_sample = app.latency.samples_ms.size(), m_first_view_sample = app.latency.first_view_ms.size();
        if (m_phase >= m_warmup + m_count) return;
        // Append or remove one short word: the text stays at 127–128 tokens, like typing and deleting.
        m_appended = !m_appended;
        app.input.spec.text = m_appended ? m_text + " x" : m_text;
        app.dirty = true;
        ++m_phase;
        m_quiet_frames = 0;
        return;
    }
    // Pan: wait for the matrices, then move the linked view each frame at two zoom levels, then hold it still, then
    // pan coarsely again while the last variant computes anew.
    MatrixViewState& v = app.view;
    if (m_phase == 0) {
        if (result_on_screen(app) && m_quiet_frames >= 5 && app.snap && app.snap->heads)
            m_phase = 1, m_phase_frames = 0, m_phase_started = std::chrono::steady_clock::now();
        return;
    }
    // While computing: the last variant runs again with a new seed whenever its view is done (the others come from
    // the worker's cache and stay drawn), until enough frames were drawn beside a running batch.
    if (m_phase == kPanComputing && app.runs.state() != WorkerState::Running && !app.dirty && !app.variants.slots.empty()) {
        Params& p = app.variants.slots.back().params;
        p.set("seed", p.get_or("seed", 0) + 1);
        app.dirty = true;
    }
    m_batch_running_at_start = app.runs.state() == WorkerState::Running;
    const double n = app.snap && app.snap->heads ? app.snap->heads->n() : 1;
    const bool coarse = m_phase == 1 || m_phase == kPanComputing;
    const double width = coarse ? n / 4 : 512;  // coarse: pooled bins; fine: full-resolution detail crops
    const double step = coarse ? n / 300 : 6;
    const double x0 = std::fmod(m_phase_frames * step, n - width), y0 = std::fmod(m_phase_frames * step * 0.7, n - width);
    if (m_phase != 3) v.x_min = x0, v.x_max = x0 + width, v.y_min = y0, v.y_max = y0 + width, v.fit_next = false;
}

void Measurement::note_stages(const RunSnapshot& snap) {
    double cpu = 0;
    for (const StageTime& t : snap.stages) {
        auto it = std::find(m_stage_names.begin(), m_stage_names.end(), t.name);
        if (it == m_stage_names.end()) {
            m_stage_names.push_back(t.name);
            m_stage_wall_ms.emplace_back(), m_stage_cpu_ms.emplace_back();
            it = m_stage_names.end() - 1;
        }
        const size_t k = size_t(it - m_stage_names.begin());
        m_stage_wall_ms[k].push_back(float(t.wall_ms));
        m_stage_cpu_ms[k].push_back(float(t.cpu_ms));
        cpu += t.cpu_ms;
    }
    m_batch_cpu_ms.push_back(float(cpu));
}

void Measurement::print_stages(const char* prefix) const {
    std::printf("%s: worker stages (median over the batches that ran them; wall / worker thread CPU; the first "
                "batch's wall):\n", prefix);
    for (size_t k = 0; k < m_stage_names.size(); ++k)
        std::printf("%s:   %-22s %7.1f ms / %7.1f ms  (%zu batches; first %.1f ms)\n", prefix, m_stage_names[k].c_str(),
                    stats_of(m_stage_wall_ms[k]).median_ms, stats_of(m_stage_cpu_ms[k]).median_ms,
                    m_stage_wall_ms[k].size(), m_stage_wall_ms[k].front());
}

bool Measurement::after_frame(App& app, double frame_ms) {
    if (m_kind == Kind::None) return false;
    if (m_status != 0) return true;
    if (!m_setup) return false;
    const bool shown = app.snap && app.snap->complete && app.snap->generation != m_last_generation;
    if (shown) {
        m_last_generation = app.snap->generation;
        m_quiet_frames = 0;
        if (m_kind == Kind::Latency && m_phase > m_warmup) {
            m_batch_ms.push_back(float(app.snap->seconds * 1000.0));
            note_stages(*app.snap);
        }
        if (m_kind == Kind::Pan && m_phase == kPanComputing) note_stages(*app.snap);  // the re-runs panned beside
    } else {
        ++m_quiet_frames;
    }
    if (m_kind == Kind::FirstView) return first_view_after_frame(app);
    if (m_kind == Kind::Latency) {
        if (m_phase < m_warmup + m_count || !result_on_screen(app)) return false;
        const auto& all = app.latency.samples_ms;
        const std::vector<float> lat(all.begin() + long(std::min(m_first_sample, all.size())), all.end());
        const TimingStats l = stats_of(lat), b = stats_of(m_batch_ms);
        const int n = app.snap && app.snap->heads ? app.snap->heads->n() : 0;
        print_machine("measure-latency");
        std::printf("measure-latency: %zu edits (after %d warm-up), text of %d tokens, %zu variants (", l.samples_ms.size(), m_warmup, n,
                    app.variants.slots.size());
        for (size_t k = 0; k < app.variants.slots.size(); ++k)
            std::printf("%s%s", k ? ", " : "", app.variants.slots[k].id.c_str());
        std::printf("), encoder layer %d, spectrum panel %s\n", app.input.spec.layer,
                    app.spectrum.visible && app.spectrum.enabled ? "visible (spectra computed)" : "hidden");
        std::printf("measure-latency: edit -> views on screen: median %.1f ms, p95 %.1f ms, max %.1f ms\n", l.median_ms,
                    l.p95_ms, l.max_ms);
        const auto& firsts = app.latency.first_view_ms;
        const TimingStats f = stats_of(std::vector<float>(firsts.begin() + long(std::min(m_first_view_sample, firsts.size())),
                                                          firsts.end()));
        std::printf("measure-latency: edit -> first view on screen: median %.1f ms, p95 %.1f ms, max %.1f ms\n",
                    f.median_ms, f.p95_ms, f.max_ms);
        std::printf("measure-latency: worker batch (encoder + variants + pooling + spectra): median %.1f ms, p95 %.1f ms "
                    "(worker thread CPU: median %.1f ms)\n",
                    b.median_ms, b.p95_ms, stats_of(m_batch_cpu_ms).median_ms);
        print_stages("measure-latency");
        if (!app.snap->input_error.empty()) {
            std::fprintf(stderr, "measure-latency: the input failed: %s\n", app.snap->input_error.c_str());
            m_status = 3;
        }
        return true;
    }
    // Pan
    if (m_phase == 0) {
        if (phase_seconds() > kPanWaitLimitS) {
            std::fprintf(stderr, "measure-pan: no result after %.0f s\n", kPanWaitLimitS);
            m_status = 2;
            return true;
        }
        return false;
    }
    if (m_phase == kPanComputing) {
        // Only frames drawn while a batch ran from start to end count, the first m_count of them.
        if (m_batch_running_at_start && app.runs.state() == WorkerState::Running &&
            int(m_frame_ms[m_phase].size()) < m_count)
            m_frame_ms[m_phase].push_back(float(frame_ms));
        ++m_phase_frames;
        if (phase_seconds() > kPanWaitLimitS) {
            std::fprintf(stderr, "measure-pan: too few frames beside a running batch, or no re-run finished, after %.0f s\n",
                         kPanWaitLimitS);
            m_status = 2;
            return true;
        }
        // ... and until three re-runs reached the screen, whose stages are printed (median: a later re-run reuses
        // what an earlier one freed, as an edit after an edit does).
        if (int(m_frame_ms[m_phase].size()) < m_count || m_batch_cpu_ms.size() < 3) return false;
    } else {
        m_frame_ms[m_phase].push_back(float(frame_ms));
        if (++m_phase_frames < m_count) return false;
    }
    m_phase_frames = 0;
    m_phase_started = std::chrono::steady_clock::now();
    if (++m_phase <= kPanComputing) return false;
    const int n = app.snap && app.snap->heads ? app.snap->heads->n() : 0;
    const int s = app.snap ? app.snap->view_size : 0;
    print_machine("measure-pan");
    std::printf("measure-pan: n = %d, %zu variant panels, pooled view %d×%d per panel, %d frames per phase\n", n,
                app.snap ? app.snap->variants.size() : 0, s, s, m_count);
    const char* names[kPanComputing + 1] = {"", "pan at 1/4 zoom (pooled bins)", "pan at 512-cell zoom (full-resolution crops)",
                                            "idle (no pan)", "pan at 1/4 zoom while the last view computes"};
    for (int p = 1; p <= kPanComputing; ++p) {
        const TimingStats f = stats_of(m_frame_ms[p]);
        std::printf("measure-pan: %-46s frame median %.1f ms, p95 %.1f ms, max %.1f ms\n", names[p], f.median_ms, f.p95_ms,
                    f.max_ms);
    }
    print_stages("measure-pan");
    if (app.snap && !app.snap->input_error.empty()) m_status = 3;
    return true;
}

}  // namespace attnscope::gui
