// attnscope — LSH buckets panel: per round a colour strip of token buckets, the sorted order with chunk
// borders, collisions of a query across rounds, and a 2-D view of the normalised vectors coloured by bucket.
// Reads the LshBuckets part of an lsh run's structure (core/variants/structure.h).
#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <array>
#include <cmath>

#include <nlohmann/json.hpp>

#include "app/gui/app.h"
#include "app/gui/panels.h"
#include "core/json_fields.h"
#include "core/backend/interface/lsh_rules.h"
#include "core/backend/shared/random.h"

namespace attnscope::gui {

namespace {

ImU32 bucket_color(int b, int n_b) {
    // Golden-ratio hue steps keep neighbouring bucket ids apart.
    const float h = std::fmod(0.618034f * float(b), 1.0f);
    ImVec4 c;
    ImGui::ColorConvertHSVtoRGB(h, 0.65f, n_b > 0 ? 0.95f : 0.5f, c.x, c.y, c.z);
    return ImGui::ColorConvertFloat4ToU32(ImVec4(c.x, c.y, c.z, 1));
}

/// Draws one strip of n items, one column per pixel at most; colour(i0, i1) gives the colour of the column
/// covering items [i0, i1); returns the strip rectangle.
template <class F>
ImVec4 strip(const char* label, int n, float height, F colour) {
    ImGui::TextWrapped("%s", label);  // wrapped: a long label stays readable in a narrow panel
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int columns = std::min(n, std::max(1, int(w)));
    for (int c = 0; c < columns; ++c) {
        const int i0 = int(int64_t(c) * n / columns), i1 = std::max(i0 + 1, int(int64_t(c + 1) * n / columns));
        const float x0 = p.x + w * float(c) / float(columns), x1 = p.x + w * float(c + 1) / float(columns);
        dl->AddRectFilled(ImVec2(x0, p.y), ImVec2(std::max(x1, x0 + 1), p.y + height), colour(i0, i1));
    }
    ImGui::Dummy(ImVec2(w, height));
    return ImVec4(p.x, p.y, p.x + w, p.y + height);
}

/// Debug preview only (Debug window): buckets hashed here by the rule every backend hashes with
/// (lsh_argmax_bucket: h(x) = argmax([xR; −xR]), scale-free, so the queries need no normalising), so the panel's
/// drawing can be checked without the `lsh` variant.
VariantView preview_lsh(const Heads& heads) {
    constexpr int kRounds = 2, kBuckets = 8, kChunk = 32;
    const int n = heads.n(), H = heads.heads(), d = heads.d();
    auto result = std::make_shared<RunResult>();
    result->variant = "lsh-preview";
    LshBuckets st;
    st.rounds = kRounds, st.buckets = kBuckets, st.chunk_len = kChunk;
    st.rotations = Tensor3(kRounds, d, kBuckets / 2);
    for (int r = 0; r < kRounds; ++r) {
        MatView R = st.rotations.head(r);
        for (int c = 0; c < d; ++c)
            for (int b = 0; b < kBuckets / 2; ++b) R(c, b) = float(rng::normal(1234, uint64_t(r), uint64_t(c) * kBuckets + b));
        std::vector<int> buckets(size_t(H) * n), perm(size_t(H) * n);
        for (int h = 0; h < H; ++h) {
            for (int i = 0; i < n; ++i) {
                std::array<float, kBuckets / 2> xr{};
                for (int b = 0; b < kBuckets / 2; ++b)
                    for (int c = 0; c < d; ++c) xr[size_t(b)] += heads.Q.at(h, i, c) * R(c, b);
                buckets[size_t(h) * n + i] = lsh_argmax_bucket(xr.data(), kBuckets);
            }
            for (int i = 0; i < n; ++i) perm[size_t(h) * n + i] = i;
            std::stable_sort(perm.begin() + long(h) * n, perm.begin() + long(h + 1) * n,
                             [&](int a, int b) { return buckets[size_t(h) * n + a] < buckets[size_t(h) * n + b]; });
        }
        st.bucket_q.push_back(std::move(buckets));
        st.perm_q.push_back(std::move(perm));
    }
    result->structure.lsh = std::move(st);
    VariantView v;
    v.id = "lsh-preview";
    v.name = "PREVIEW (Debug window): hashed by the panel, not by the lsh variant";
    v.result = result;
    return v;
}

}  // namespace

void draw_lsh_panel(App& app, const PanelEntry& self) {
    if (!ImGui::Begin(self.window)) {
        ImGui::End();
        return;
    }
    const auto snap = app.snap;
    std::vector<const VariantView*> lsh;
    if (snap)
        for (const auto& v : snap->variants)
            if (v.result && v.result->structure.lsh) lsh.push_back(&v);
    if (lsh.empty() && app.lsh.preview && snap && snap->heads) {  // rebuilt when the input changes
        if (app.lsh.preview_for != snap->generation)
            app.lsh.preview_view = preview_lsh(*snap->heads), app.lsh.preview_for = snap->generation;
        lsh.push_back(&app.lsh.preview_view);
    }
    if (lsh.empty()) {
        hint_text("This panel shows how Reformer's LSH attention (Kitaev 2020) groups tokens: for every hash round a "
                    "colour strip of each token's bucket, the tokens sorted by bucket with the chunk borders, which "
                    "keys collide with a query across rounds, and the normalised vectors in 2-D coloured by bucket. "
                    "Add the `lsh` variant in Variants to fill it.");
        ImGui::End();
        return;
    }
    app.lsh.variant = std::clamp(app.lsh.variant, 0, int(lsh.size()) - 1);
    if (lsh.size() > 1) ImGui::SliderInt("lsh variant", &app.lsh.variant, 0, int(lsh.size()) - 1);
    const VariantView& v = *lsh[app.lsh.variant];
    const LshBuckets& st = *v.result->structure.lsh;
    const int n = snap->heads->n(), H = snap->heads->heads();
    const int head = std::clamp(app.view.head, 0, H - 1);
    const int rounds = st.rounds, chunk = st.chunk_len, n_b = std::max(1, st.buckets);
    ImGui::Text("%s: %d rounds, %d buckets, chunk c = %d, head %d (the Matrices head)", v.name.c_str(), rounds, n_b,
                chunk, head);
    const int query = app.view.shown_i >= 0 && app.view.shown_i < n ? app.view.shown_i : 0;
    auto bucket_of = [&](int r, int i) {
        const std::vector<int>& b = st.bucket_q[r];
        const size_t at = size_t(head) * n + i;
        return at < b.size() ? b[at] : 0;
    };
    ImGui::BeginChild("strips", ImVec2(0, 0), ImGuiChildFlags_None);
    for (int r = 0; r < rounds; ++r) {
        ImGui::PushID(r);
        ImGui::SeparatorText(("round " + std::to_string(r)).c_str());
        // Buckets are categories: a column covering several positions shows its first one's.
        strip("bucket of each position i (left → right)", n, 14,
              [&](int i, int) { return bucket_color(bucket_of(r, i), n_b); });
        {
            const std::vector<int>& perm = st.perm_q[r];
            const ImVec4 rect = strip("sorted by (bucket, position); white lines = chunk borders", n, 14, [&](int slot, int) {
                const size_t at = size_t(head) * n + slot;
                return bucket_color(at < perm.size() ? bucket_of(r, perm[at]) : 0, n_b);
            });
            if (chunk > 0)
                for (int c = chunk; c < n; c += chunk) {
                    const float x = rect.x + (rect.z - rect.x) * float(c) / float(n);
                    ImGui::GetWindowDrawList()->AddLine(ImVec2(x, rect.y - 2), ImVec2(x, rect.w + 2), IM_COL32_WHITE, 1.5f);
                }
        }
        ImGui::PopID();
    }
    ImGui::SeparatorText("collisions across rounds");
    const std::string label = "keys sharing a bucket with query i = " + position_label(snap->heads.get(), query) +
                              " (brighter = more of the " + std::to_string(rounds) +
                              " rounds, the most in each pixel; hover a matrix to pick i)";
    // A column covering several keys shows the most rounds any of them shares: one colliding key stays visible.
    strip(label.c_str(), n, 16, [&](int j0, int j1) {
        int same = 0;
        for (int j = j0; j < j1 && same < rounds; ++j) {
            int here = 0;
            for (int r = 0; r < rounds; ++r) here += bucket_of(r, j) == bucket_of(r, query);
            same = std::max(same, here);
        }
        const float t = rounds ? float(same) / float(rounds) : 0;
        return ImGui::ColorConvertFloat4ToU32(ImVec4(0.15f + 0.85f * t, 0.15f + 0.55f * t, 0.2f, 1));
    });
    // 2-D view: queries normalised, projected on the first two directions of round 0's rotation.
    if (st.rotations.heads() > 0) {
        const ConstMatView R = st.rotations.head(0);  // (d, n_b/2)
        const Tensor3& Q = snap->heads->Q;
        if (R.rows() == Q.cols() && R.cols() >= 2) {
            LshState& cache = app.lsh;
            const bool same_run = !cache.plane_run.owner_before(v.result) && !v.result.owner_before(cache.plane_run);
            if (!same_run || cache.plane_head != head) {
                cache.plane_x.assign(size_t(n_b), {}), cache.plane_y.assign(size_t(n_b), {});
                for (int i = 0; i < n; ++i) {
                    const auto q = Q.head(head).row(i);
                    const float norm = std::max(1e-12f, q.norm());
                    double a = 0, b = 0;
                    for (int c = 0; c < Q.cols(); ++c) a += q[c] / norm * R(c, 0), b += q[c] / norm * R(c, 1);
                    const int bk = bucket_of(0, i);
                    cache.plane_x[size_t(bk)].push_back(a), cache.plane_y[size_t(bk)].push_back(b);
                }
                cache.plane_run = v.result, cache.plane_head = head;
            }
            const std::vector<std::vector<double>>& xs = cache.plane_x;
            const std::vector<std::vector<double>>& ys = cache.plane_y;
            if (ImPlot::BeginPlot("normalised queries in the plane of the first two rotation directions (round 0)",
                                  ImVec2(-1, 320), ImPlotFlags_Equal)) {
                ImPlot::SetupAxes("x̂·R[:,0]", "x̂·R[:,1]");
                ImPlot::SetupLegend(ImPlotLocation_NorthEast, ImPlotLegendFlags_Outside);
                for (int bk = 0; bk < n_b; ++bk) {
                    if (xs[bk].empty()) continue;
                    ImPlotSpec spec;
                    spec.Marker = ImPlotMarker_Circle;
                    spec.MarkerSize = 3;
                    spec.MarkerFillColor = ImGui::ColorConvertU32ToFloat4(bucket_color(bk, n_b));
                    spec.MarkerLineColor = spec.MarkerFillColor;
                    if (n_b > 16) spec.Flags = ImPlotItemFlags_NoLegend;
                    ImPlot::PlotScatter(("bucket " + std::to_string(bk)).c_str(), xs[bk].data(), ys[bk].data(),
                                        int(xs[bk].size()), spec);
                }
                ImPlot::EndPlot();
            }
            ImGui::TextDisabled("Colours are the true buckets; for d > 2 this plane is a projection, so sectors overlap.");
        }
    } else {
        hint_text("The 2-D view needs the rotation matrix \"rotation/r0\" from the lsh variant.");
    }
    ImGui::EndChild();
    ImGui::End();
}

void save_lsh_session(const App& app, nlohmann::json& j) { j["view"]["lsh_preview"] = app.lsh.preview; }

void load_lsh_session(App& app, const nlohmann::json& j) {
    if (j.contains("view")) app.lsh.preview = json_bool(j["view"], "lsh_preview", false, "the session's view");
}

}  // namespace attnscope::gui
