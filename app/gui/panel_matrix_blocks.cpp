// attnscope — the block view of the Matrices panel: a block-sparse kernel's b×b tiles drawn over the token-level
// mask (full tiles outlined, partial tiles outlined in amber, skipped tiles shaded), and two density badges: the
// cells the kernel pays for (stored tiles) and the cells the pattern uses (allowed cells), both over n².
#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cstdio>

#include "app/gui/app.h"

namespace attnscope::gui {

namespace {

const BlockTiles* tiles_of(App& app, const RunSnapshot& snap, const VariantView& v, int head) {
    if (!v.result || !v.result->structure.blocks || !v.result->structure.blocks->layout) return nullptr;
    if (app.block_tiles_of != &snap) app.block_tiles.clear(), app.block_tiles_of = &snap;
    const BlockLayout* layout = v.result->structure.blocks->layout.get();
    const int layout_head = layout->heads == 1 ? 0 : std::clamp(head, 0, layout->heads - 1);
    auto key = std::make_pair(layout, layout_head);
    auto it = app.block_tiles.find(key);
    if (it == app.block_tiles.end()) it = app.block_tiles.emplace(key, block_tiles(*layout, layout_head)).first;
    return &it->second;
}

/// Whether head `head` ran with its rows permuted (the strided pattern's slot order).
bool head_permuted(const BlockPlan& plan, int head, int n) {
    if (plan.perm.empty()) return false;
    const size_t base = size_t(head) * n;
    if (plan.perm.size() < base + n) return false;
    for (int i = 0; i < n; ++i)
        if (plan.perm[base + i] != i) return true;
    return false;
}

}  // namespace

void draw_block_tiles(App& app, const RunSnapshot& snap, const VariantView& v, int head, std::string& note) {
    const BlockTiles* t = tiles_of(app, snap, v, head);
    if (!t) return;
    const int n = t->n, b = t->block, nb = t->block_rows;
    if (head_permuted(*v.result->structure.blocks, head, n)) {
        note = "head " + std::to_string(head) + " ran in slot order (rows permuted so the stride is contiguous): its " +
               std::to_string(b) + "×" + std::to_string(b) + " tiles are in slot order, not over these positions — not drawn";
        return;
    }
    if (!snap.display_perm.empty()) {
        note = "the axes are reordered: tiles are drawn only in position order (order → positions)";
        return;
    }
    ImPlot::PushPlotClipRect();
    ImDrawList* dl = ImPlot::GetPlotDrawList();
    const float px = ImPlot::PlotToPixels(b, 0).x - ImPlot::PlotToPixels(0, 0).x;  // one tile's width in pixels
    const bool outlines = px >= 4;  // below that, outlines would merge into a grey wash
    for (int I = 0; I < nb; ++I)
        for (int J = 0; J < nb; ++J) {
            const TileKind kind = t->at(I, J);
            const ImVec2 a = ImPlot::PlotToPixels(J * b, I * b);
            const ImVec2 c = ImPlot::PlotToPixels(std::min(n, (J + 1) * b), std::min(n, (I + 1) * b));
            const ImVec2 lo(std::min(a.x, c.x), std::min(a.y, c.y)), hi(std::max(a.x, c.x), std::max(a.y, c.y));
            if (kind == TileKind::Skipped) {
                dl->AddRectFilled(lo, hi, IM_COL32(0, 0, 0, 90));
            } else if (outlines) {
                const ImU32 col = kind == TileKind::Full ? IM_COL32(235, 235, 235, 200) : IM_COL32(255, 176, 60, 230);
                dl->AddRect(ImVec2(lo.x + 0.5f, lo.y + 0.5f), ImVec2(hi.x - 0.5f, hi.y - 0.5f), col, 0.0f, 0,
                            kind == TileKind::Full ? 1.0f : 1.5f);
            } else {
                dl->AddRectFilled(lo, hi, kind == TileKind::Full ? IM_COL32(235, 235, 235, 40) : IM_COL32(255, 176, 60, 60));
            }
        }
    ImPlot::PopPlotClipRect();
    if (ImPlot::IsPlotHovered()) {
        const ImPlotPoint mp = ImPlot::GetPlotMousePos();
        const int I = int(mp.y) / b, J = int(mp.x) / b;
        if (mp.x >= 0 && mp.y >= 0 && I < nb && J < nb) {
            const TileKind kind = t->at(I, J);
            ImGui::BeginTooltip();
            ImGui::Text("tile (%d, %d): queries %d–%d, keys %d–%d — %s", I, J, I * b, std::min(n, (I + 1) * b) - 1, J * b,
                        std::min(n, (J + 1) * b) - 1,
                        kind == TileKind::Full      ? "full: stored, every cell allowed"
                        : kind == TileKind::Partial ? "partial: stored, an in-block mask forbids some cells"
                                                    : "skipped: never scored by the kernel");
            ImGui::EndTooltip();
        }
    }
}

void block_density_badges(App& app, const VariantView& v, int head) {
    if (!app.snap) return;
    const BlockTiles* t = tiles_of(app, *app.snap, v, head);
    if (!t) return;
    char text[200];
    std::snprintf(text, sizeof text, "block density %.3f · token density %.3f (%d×%d tiles)", t->block_density(),
                  t->token_density(), t->block, t->block);
    ImGui::TextColored(ImVec4(0.85f, 0.85f, 0.70f, 1), "%s", text);
    ImGui::SetItemTooltip("both over the n² = %d² cells of head %d: block density = cells inside stored b×b tiles / n² "
                          "(what the kernel computes); token density = allowed cells / n² (what the pattern keeps). %lld of "
                          "%d² tiles stored. Outlined: full tiles; amber: partial tiles; shaded: skipped tiles.",
                          t->n, head, static_cast<long long>(t->stored), t->block_rows);
}

}  // namespace attnscope::gui
