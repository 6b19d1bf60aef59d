// attnscope — Debug window (never removed): frame times, worker and memory state, GL driver, and the
// Dear ImGui / ImPlot demos.
#include <epoxy/gl.h>
#include <imgui.h>
#include <implot.h>

#include <algorithm>

#include "app/gui/app.h"
#include "app/gui/panels.h"
#include "core/memory.h"
#include "core/variants/registry.h"

namespace attnscope::gui {

namespace {
const char* state_name(WorkerState s) {
    switch (s) {
        case WorkerState::Idle: return "idle";
        case WorkerState::Running: return "running";
        case WorkerState::Done: return "done";
        case WorkerState::Failed: return "failed";
    }
    return "?";
}
}  // namespace

void draw_debug_panel(App& app, const PanelEntry& self) {
    DebugState& d = app.debug;
    d.frame_ms[size_t(d.frame_index++ % int(d.frame_ms.size()))] = ImGui::GetIO().DeltaTime * 1000.0f;
    if (ImGui::Begin(self.window)) {
        const size_t filled = std::min(d.frame_ms.size(), size_t(d.frame_index));
        std::vector<float> sorted(d.frame_ms.begin(), d.frame_ms.begin() + long(filled));
        std::sort(sorted.begin(), sorted.end());
        const float p95 = sorted.empty() ? 0.0f : sorted[size_t(0.95 * double(sorted.size() - 1))];
        ImGui::Text("frame %.2f ms (%.0f FPS), p95 over the last %zu frames: %.2f ms", 1000.0f / ImGui::GetIO().Framerate,
                    ImGui::GetIO().Framerate, filled, p95);
        if (!app.latency.samples_ms.empty()) {
            std::vector<float> lat(app.latency.samples_ms.end() - long(std::min<size_t>(app.latency.samples_ms.size(), 50)),
                                   app.latency.samples_ms.end());
            std::sort(lat.begin(), lat.end());
            ImGui::Text("edit → views: last %.0f ms, median %.0f ms over the last %zu edits", app.latency.samples_ms.back(),
                        lat[lat.size() / 2], lat.size());
        } else {
            ImGui::TextDisabled("edit → views: no edit yet");
        }
        ImGui::SetItemTooltip("from the frame holding an edit (a keystroke, a slider) to the end of the frame that shows "
                              "its result in every panel");
        ImGui::PlotLines("##frames", d.frame_ms.data(), int(d.frame_ms.size()), d.frame_index % int(d.frame_ms.size()),
                         "frame time [ms]", 0, std::max(50.0f, p95 * 1.3f), ImVec2(-1, 60));
        ImGui::Checkbox("Dear ImGui demo", &d.imgui_demo);
        ImGui::SameLine();
        ImGui::Checkbox("ImPlot demo", &d.implot_demo);
        ImGui::SameLine();
        ImGui::Checkbox("LSH panel preview", &app.lsh.preview);
        ImGui::SetItemTooltip("fill the LSH buckets panel with buckets hashed by the panel (Reformer's rule) when no "
                              "lsh variant is selected: checks the drawing, not the variant");
        ImGui::SeparatorText("compute");
        ImGui::Text("run worker: %s (generation %llu), %s", state_name(app.runs.state()),
                    static_cast<unsigned long long>(app.runs.posted_generation()), app.runs.backend_description().c_str());
        if (const auto job = app.runs.running_job())
            ImGui::Text("job: %s, %s, %.0f%%, %.1f s; %d queued", job->kind().c_str(), job_state_name(job->state()),
                        100.0 * job->progress(), job->seconds(), app.runs.queued_jobs());
        else
            ImGui::Text("jobs: none running, %d queued", app.runs.queued_jobs());
        ImGui::Text("performance sweep: %s", app.bench ? job_state_name(app.bench->state()) : "not started");
        ImGui::Text("layer spectra job: %s", app.layer_grid.job ? job_state_name(app.layer_grid.job->state()) : app.layer_grid.pending ? "due" : "idle");
        ImGui::Text("tracked memory: %.1f MiB live, %.1f MiB peak", double(memory_counters().live.load()) / (1 << 20),
                    double(memory_counters().peak.load()) / (1 << 20));
        if (app.snap) ImGui::Text("last batch: %.3f s, %zu variants", app.snap->seconds, app.snap->variants.size());
        std::string ids;
        for (const auto& v : all_variants()) ids += v->info().id + " ";
        ImGui::TextWrapped("registered variants: %s", ids.c_str());
        ImGui::SeparatorText("OpenGL");
        ImGui::TextWrapped("%s — %s", reinterpret_cast<const char*>(glGetString(GL_RENDERER)),
                           reinterpret_cast<const char*>(glGetString(GL_VERSION)));
        if (!app.gl_interop) app.gl_interop = make_gl_interop();
        const std::string why = app.gl_interop->direct_unavailable_reason();
        ImGui::TextWrapped("CUDA–OpenGL interop: %s", why.empty() ? "direct (device matrices are copied into textures on the GPU)"
                                                                  : why.c_str());
    }
    ImGui::End();
    if (d.imgui_demo) ImGui::ShowDemoWindow(&d.imgui_demo);
    if (d.implot_demo) ImPlot::ShowDemoWindow(&d.implot_demo);
}

}  // namespace attnscope::gui
