// attnscope — a variant view's progress line (see view_progress.h).
#include "app/gui/view_progress.h"

#include <imgui.h>

#include <chrono>
#include <cstdio>

namespace attnscope::gui {

double worker_clock_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int views_ahead(const RunSnapshot& snap, size_t k) {
    // The running view, and the queued ones shown before k (large n runs the cheapest first, so this is a bound).
    int ahead = 0;
    for (size_t i = 0; i < snap.variants.size(); ++i)
        ahead += i != k && (snap.variants[i].state == ViewState::Running || (i < k && snap.variants[i].state == ViewState::Queued));
    return ahead;
}

bool view_progress(const VariantView& v, int ahead) {
    if (v.state == ViewState::Done && !v.metrics_pending) return false;
    char text[160];
    float fraction = -1.0f * float(ImGui::GetTime());  // negative: ImGui's indeterminate (animated) bar
    if (v.state == ViewState::Queued) {
        fraction = 0;
        if (ahead > 0) std::snprintf(text, sizeof text, "queued: %d view%s first", ahead, ahead == 1 ? "" : "s");
        else std::snprintf(text, sizeof text, "queued");
    } else if (v.state == ViewState::Running) {
        std::snprintf(text, sizeof text, "computing… %.1f s", worker_clock_seconds() - v.started_s);
    } else {
        std::snprintf(text, sizeof text, "errors: exact O(n²) reference…");
    }
    ImGui::PushStyleColor(ImGuiCol_PlotHistogram, ImVec4(0.95f, 0.75f, 0.3f, 1));
    ImGui::ProgressBar(fraction, ImVec2(-1, 0), text);
    ImGui::PopStyleColor();
    return true;
}

}  // namespace attnscope::gui
