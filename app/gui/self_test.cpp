#include "app/gui/self_test.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "core/backend/factory/make_backend.h"
#include "core/bench/memory_probe.h"
#include "core/data/model_paths.h"
#include "core/data/samples.h"
#include "core/data/scenarios.h"
#include "core/lessons/lessons.h"
#include "core/lessons/preset.h"
#include "core/memory.h"
#include "core/session/export.h"
#include "core/variants/registry.h"
#include "app/gui/gl_heatmap.h"
#include "app/gui/panel_figures.h"
#include "app/gui/panels.h"

namespace attnscope::gui {

namespace {

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// The edits wait while a posted batch has been unanswered this long, so a slow batch can finish: the wedge
/// invariant then measures the worker, not a driver that outpaces it.
constexpr double kPauseEditsAfterSeconds = 5;

}  // namespace

SelfTest::SelfTest(uint64_t seed, SelfTestLimits limits) : m_rng(seed), m_limits(limits) {}

void SelfTest::inject(App& app, int width, int height) {
    if (m_tensor_dir.empty()) m_tensor_dir = write_tensor_folder_in(app);
    ImGuiIO& io = ImGui::GetIO();
    std::uniform_real_distribution<float> ux(0, float(width)), uy(0, float(height)), u01(0, 1);
    if (m_hold > 0) {  // a drag in progress: pans a plot, moves a slider or a window
        m_mx = std::clamp(m_mx + (u01(m_rng) - 0.5f) * 40, 0.0f, float(width));
        m_my = std::clamp(m_my + (u01(m_rng) - 0.5f) * 40, 0.0f, float(height));
        io.AddMousePosEvent(m_mx, m_my);
        if (--m_hold == 0) io.AddMouseButtonEvent(0, false);
    } else {  // hover anywhere, sometimes a click, a short drag, the wheel (zoom) or a right click
        m_mx = ux(m_rng), m_my = uy(m_rng);
        io.AddMousePosEvent(m_mx, m_my);
        const float r = u01(m_rng);
        if (r < 0.10f) {
            io.AddMouseButtonEvent(0, true);
            m_hold = 1 + int(u01(m_rng) * 12);
        } else if (r < 0.16f) {
            io.AddMouseWheelEvent(0, (u01(m_rng) - 0.5f) * 4);
        } else if (r < 0.17f) {
            io.AddMouseButtonEvent(1, true), io.AddMouseButtonEvent(1, false);
        }
    }
    const bool waiting = m_unanswered_since >= 0 && now_seconds() - m_unanswered_since > kPauseEditsAfterSeconds;
    // From frame 80, edits pause until the exports below have run, so a result is sure to arrive.
    if (app.frame % 12 == 0 && (app.frame < 80 || m_exported) && !waiting) edit(app);
    const VariantView* shown = nullptr;  // the first variant with a matrix to export
    if (app.snap)
        for (const VariantView& v : app.snap->variants)
            if (v.matrix && !shown) shown = &v;
    if (!m_exported && app.frame >= 90 && shown) {  // every export path once, early
        m_exported = true;
        export_matrix(app, *shown, 0, "csv");
        export_matrix(app, *shown, 0, "npy");
        app.captures.push_back({export_path(app, "self-test-window.png"), ImVec4(0, 0, 0, 0)});
        app.captures.push_back({export_path(app, "self-test-corner.png"), ImVec4(0, 0, 200, 100)});
    }
    // Edits never stop for good: when nothing exportable has shown by frame 600, carry on without the exports
    // (the smoke test, whose first batch always shows, still checks that they were written).
    if (!m_exported && app.frame >= 600) m_exported = true;
    if (app.frame == m_cancel_at) {
        cancel_metric_sweep(app);
        if (app.bench) app.bench->cancel();
    }
}

std::string SelfTest::write_tensor_folder_in(App& app) const {
    ScenarioSpec spec;
    spec.n = 48, spec.heads = 2, spec.dim = 16, spec.seed = 7;
    const Heads h = make_scenario(spec);
    const std::string dir = export_path(app, "self-test-tensors");
    std::filesystem::create_directories(dir);
    write_npy(dir + "/q.npy", h.Q);
    write_npy(dir + "/k.npy", h.K);
    write_npy(dir + "/v.npy", h.V);
    return dir;
}

void SelfTest::edit(App& app) {
    ++edits;
    std::uniform_int_distribution<int> pick(0, 19);
    std::uniform_real_distribution<double> u01(0, 1);
    auto any = [&](size_t count) { return std::min(count - 1, size_t(u01(m_rng) * double(count))); };
    auto& sc = app.input.spec.scenario;
    auto note = [&](const char* kind) { ++m_kinds[kind]; };
    switch (pick(m_rng)) {
        case 0: note("n"); sc.n = 16 + int(u01(m_rng) * 496); app.dirty = true; break;
        case 1: note("scenario"); sc.kind = scenario_list()[any(scenario_list().size())].kind; app.dirty = true; break;
        case 2:
            note("shape");
            sc.temperature = 0.1 + u01(m_rng) * 3, sc.heads = 1 + int(u01(m_rng) * 4), app.dirty = true;
            break;
        case 3: note("head"); app.view.head = int(u01(m_rng) * 4); break;
        case 4: note("toggles"); app.view.show_mask = !app.view.show_mask; app.view.log_scale = u01(m_rng) < 0.5; break;
        case 5: note("toggles"); app.view.show_diff = !app.view.show_diff; break;
        case 6: {  // zoom and pan to a random window of the matrix
            note("zoom");
            const double n = sc.n, a = u01(m_rng) * n, w = 1 + u01(m_rng) * n;
            app.view.x_min = a, app.view.x_max = a + w, app.view.y_min = n - a - w, app.view.y_max = n - a;
            break;
        }
        case 7: {
            note("add/remove");
            const auto& all = all_variants();
            if (app.variants.slots.size() < 4) app.variants.add(all[any(all.size())]->info().id);
            else app.variants.slots.erase(app.variants.slots.begin() + long(any(app.variants.slots.size())));
            app.dirty = true;
            break;
        }
        case 8: case 9: {  // a random parameter of a random slot, within its range
            if (app.variants.slots.empty()) break;
            note("parameter");
            auto& slot = app.variants.slots[any(app.variants.slots.size())];
            const auto& specs = find_variant(slot.id).info().params;
            if (specs.empty()) break;
            const ParamSpec& p = specs[any(specs.size())];
            if (p.kind == ParamKind::IntList) {
                std::vector<int> positions;
                for (int k = int(u01(m_rng) * 4); k > 0; --k) positions.push_back(int(u01(m_rng) * sc.n));
                slot.params.set_list(p.name, positions);
            } else {
                double v = p.lo + u01(m_rng) * std::min(p.hi - p.lo, 512.0);
                if (p.kind != ParamKind::Real) v = std::floor(v);
                slot.params.set(p.name, v);
            }
            app.dirty = true;
            break;
        }
        case 10: {
            note("focus");
            const auto all = panels();
            ImGui::SetWindowFocus(all[any(all.size())].window);
            break;
        }
        case 11: {  // reorder: swap two slots (the Variants panel's drag and drop)
            if (app.variants.slots.size() < 2) break;
            note("reorder");
            std::swap(app.variants.slots[any(app.variants.slots.size())], app.variants.slots[any(app.variants.slots.size())]);
            app.dirty = true;
            break;
        }
        case 12: {  // switch the input: synthetic, text (when the model is installed) or the tensors written at start
            note("input");
            InputSpec& in = app.input.spec;
            const int mode = int(u01(m_rng) * 3);
            if (mode == 1 && text_model_present(in)) in.mode = InputMode::Text, in.text = default_sample_text();
            else if (mode == 2) in.mode = InputMode::Tensors, in.tensors_path = m_tensor_dir;
            else in.mode = InputMode::Synthetic;
            app.dirty = true;
            break;
        }
        case 13: {  // a lesson's preset (input, variants, panels)
            if (u01(m_rng) > 0.3) break;
            note("lesson");
            // Not the lessons on a decoder's long text: its 135M-parameter passes over thousands of tokens take
            // minutes under the sanitizers this run is built with, and a pass stops only between layers.
            std::vector<std::string> ids;
            for (const Lesson& l : all_lessons())
                if (!resolve_model(preset_input_spec(l.preset).model_dir).decoder) ids.push_back(l.id);
            apply_lesson(app, ids[any(ids.size())]);
            app.dirty = true;
            break;
        }
        case 14: {  // start a metric sweep or a benchmark, and cancel it a little later
            if (sweep_busy(app) || (app.bench && !app.bench->finished()))
                break;
            note("sweep/bench");
            if (u01(m_rng) < 0.5) app.metric_sweep.run_on_start = true;
            else app.perf.start_pending = true, app.perf.quick_pending = true;
            m_cancel_at = app.frame + 10 + int(u01(m_rng) * 200);
            break;
        }
        case 15: {  // export a shown matrix
            if (!app.snap || app.snap->variants.empty() || !app.snap->variants[0].matrix) break;
            note("export");
            const auto& v = app.snap->variants[any(app.snap->variants.size())];
            if (v.matrix) export_matrix(app, v, 0, u01(m_rng) < 0.5 ? "csv" : "npy");
            // And the classroom paths: a slide figure, presentation mode, a font scale (Ctrl +/−).
            if (u01(m_rng) < 0.3) {  // any panel's figure, whatever state it is in (one with nothing to draw says so)
                const PanelEntry& p = panels()[any(panels().size())];
                export_panel_figure(app, p, u01(m_rng) < 0.5 ? figure::Theme::Light : figure::Theme::Dark);
            }
            if (u01(m_rng) < 0.3) app.view.presentation = !app.view.presentation;
            if (u01(m_rng) < 0.3) app.view.font_scale = float(kMinFontScale + u01(m_rng) * (kMaxFontScale - kMinFontScale));
            break;
        }
        case 16: case 17: {  // what a user does about an error: reset the parameters of the variant that failed
            if (!app.snap) break;
            bool repaired = false;
            for (const VariantView& v : app.snap->variants)
                if (!v.error.empty())
                    for (auto& slot : app.variants.slots)
                        if (slot.id == v.id) slot.params = Params{}, repaired = true;
            if (!repaired) break;
            note("repair");
            app.dirty = true;
            break;
        }
        default: note("fit"); app.view.fit_next = true; break;
    }
}

std::string SelfTest::check(App& app) {
    const double now = now_seconds();
    // What the newest posted generation asked for; the slots match it only when no edit is waiting to be posted.
    const uint64_t posted = app.runs.posted_generation();
    if (posted > 0 && !app.dirty && !m_posted.count(posted)) {
        Posted p{app.effective_input(), {}};
        for (const auto& s : app.variants.slots) p.variants.push_back({s.id, s.params});
        m_posted[posted] = std::move(p);
        while (m_posted.size() > 64) m_posted.erase(m_posted.begin());
    }
    // The worker answers every posted batch.
    const uint64_t shown = app.snap ? app.snap->generation : 0;
    if (posted > shown) {
        if (m_unanswered_since < 0) m_unanswered_since = now;
        else if (now - m_unanswered_since > m_limits.wedge_seconds)
            return "the worker looks wedged: batch " + std::to_string(posted) + " was posted " +
                   std::to_string(int(now - m_unanswered_since)) + " s ago (edits paused) and the newest shown is " +
                   std::to_string(shown) + "; " + describe_state(app);
    } else {
        m_unanswered_since = -1;
    }
    if (app.snap && app.snap->generation != m_checked_generation) {
        if (m_limits.inject_false_error) inject_false_error(app);
        m_checked_generation = app.snap->generation;
        ++m_snapshots;
        if (std::string why = check_banner_cause(app); !why.empty()) return why;
    }
    // Memory stays bounded.
    if (app.frame % 30 == 0) {
        const int64_t tracked = memory_counters().live.load(), resident = resident_bytes();
        m_peak_tracked = std::max(m_peak_tracked, tracked), m_peak_resident = std::max(m_peak_resident, resident);
        if (tracked > m_limits.max_tracked_bytes)
            return "tracked tensors hold " + std::to_string(tracked >> 20) + " MiB, above the bound of " +
                   std::to_string(m_limits.max_tracked_bytes >> 20) + " MiB; " + describe_state(app);
        if (resident > m_limits.max_resident_bytes)
            return "the resident set is " + std::to_string(resident >> 20) + " MiB, above the bound of " +
                   std::to_string(m_limits.max_resident_bytes >> 20) + " MiB; " + describe_state(app);
    }
    return "";
}

std::string SelfTest::describe_state(const App& app) const {
    const std::shared_ptr<const Job> job = app.runs.running_job();
    std::string s = "on the worker: " + (job ? job->kind() : std::string("a batch")) + " at " +
                    std::to_string(int(100 * app.runs.progress())) + "%, " + std::to_string(app.runs.queued_jobs()) +
                    " jobs queued; input: " + describe_input(app.effective_input()) + "; variants:";
    for (const auto& slot : app.variants.slots) {
        s += " " + slot.id;
        for (const auto& [name, value] : slot.params.numbers()) s += " " + name + "=" + std::to_string(value);
    }
    return s;
}

void SelfTest::inject_false_error(App& app) {
    if (!m_posted.count(app.snap->generation)) return;  // the check could not compare it: wait for one it can
    auto faulty = std::make_shared<RunSnapshot>(*app.snap);
    for (VariantView& v : faulty->variants) {
        if (v.auxiliary || !v.error.empty()) continue;
        v.error = "injected fault: this variant ran but the view says it failed";
        app.snap = std::move(faulty);
        m_limits.inject_false_error = false;
        return;
    }
}

std::string SelfTest::check_banner_cause(const App& app) {
    const RunSnapshot& snap = *app.snap;
    const auto it = m_posted.find(snap.generation);
    if (it == m_posted.end()) return "";  // posted and answered between two checks: nothing recorded to compare
    const Posted& asked = it->second;
    if (!snap.input_error.empty()) {
        try {
            build_input(asked.input);
        } catch (const Error&) {
            ++m_banners_reproduced;
            return "";
        }
        return "an error banner without a cause: the input of batch " + std::to_string(snap.generation) +
               " failed ('" + snap.input_error + "') but builds when asked again";
    }
    static const std::unique_ptr<Backend> cpu = make_backend("cpu");
    size_t k = 0;
    for (const VariantView& v : snap.variants) {
        if (v.auxiliary) continue;
        const size_t index = k++;
        if (v.error.empty() || v.device_memory || !snap.heads || index >= asked.variants.size()) continue;
        RunOptions options;
        options.explain = true, options.max_matrix_n = app.input.max_matrix_n;
        ReferenceCache refs(*snap.heads, snap.heads->n() <= app.input.max_matrix_n);
        try {
            run_variant(*snap.heads, asked.variants[index], options, *cpu, &refs);
        } catch (const Error&) {
            ++m_banners_reproduced;
            continue;
        }
        return "an error banner without a cause: " + v.id + " failed in batch " + std::to_string(snap.generation) +
               " ('" + v.error + "') but the same request runs when asked again";
    }
    return "";
}

std::string SelfTest::summary(const App& app) const {
    std::string kinds;
    for (const auto& [kind, count] : m_kinds) kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(count);
    return std::to_string(app.frame + 1) + " frames, " + std::to_string(edits) + " random edits (" + kinds + "), " +
           std::to_string(m_snapshots) + " batches shown, " + std::to_string(m_banners_reproduced) +
           " error views reproduced, peak tracked " + std::to_string(m_peak_tracked >> 20) + " MiB, peak resident " +
           std::to_string(m_peak_resident >> 20) + " MiB";
}

std::string pyramid_paths_broken(const PyramidBuilder& pyramids, uint64_t seed) {
    const int rows = 301, cols = 157;
    std::mt19937 rng(static_cast<uint32_t>(seed));
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::uniform_int_distribution<int> reason(0, static_cast<int>(Reason::Count) - 1);
    std::vector<float> data(size_t(rows) * cols);
    std::vector<uint8_t> mask(data.size());
    for (size_t k = 0; k < data.size(); ++k) data[k] = value(rng), mask[k] = uint8_t(reason(rng));
    const bool broken = std::getenv("ATTNSCOPE_SELF_TEST_BREAK_PYRAMID") != nullptr;
    for (const CellReduction how : {CellReduction::Max, CellReduction::SignedMaxAbs}) {
        const CellReduction host_how = !broken ? how
                                       : how == CellReduction::Max ? CellReduction::SignedMaxAbs
                                                                   : CellReduction::Max;
        if (const int64_t n = texels_where_pyramids_differ(pyramids, data.data(), mask.data(), rows, cols, how, host_how); n > 0)
            return "the host-built reduction pyramid differs from the GPU-built one in " + std::to_string(n) +
                   " texels (core/figure/reduction_pyramid.h against shaders/reduce_*.frag)";
    }
    return "";
}

}  // namespace attnscope::gui
