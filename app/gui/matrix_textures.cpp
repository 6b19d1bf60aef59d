// attnscope — the Matrices panel's textures (see matrix_view.h): the pooled view of each shown head, and a
// full-resolution crop when the visible window of a large matrix is smaller than the texture.
#include <algorithm>
#include <cmath>

#include "app/gui/matrix_view.h"

namespace attnscope::gui {

int position_of(const RunSnapshot& snap, int head, int slot) {
    const int n = snap.heads ? snap.heads->n() : 0;
    if (snap.display_perm.empty() || n == 0) return slot;
    const int layout_head = head % std::max(1, int(snap.display_perm.size()) / n);
    return snap.display_perm[size_t(layout_head) * n + slot];
}


namespace {

uint64_t key_of(std::initializer_list<uint64_t> parts) {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t p : parts) h = (h ^ (p + 0x9e3779b97f4a7c15ull)) * 1099511628211ull;
    return h | 1;  // never 0 (= nothing uploaded)
}

}  // namespace

void update_textures(App& app, size_t k, const RunSnapshot& snap, const VariantView& v, int head, bool diff) {
    auto& tex = app.textures[k];
    const Tensor3* pooled = diff ? (v.pooled_diff ? &*v.pooled_diff : nullptr) : (v.pooled ? &*v.pooled : nullptr);
    if (!pooled) return;
    const int n = snap.heads->n(), s = pooled->rows();
    // Differences and signed matrices keep each pixel's entry of largest magnitude; weights its largest.
    const CellReduction reduction = diff || v.is_signed(head) ? CellReduction::SignedMaxAbs : CellReduction::Max;
    const uint64_t base_key = key_of({snap.generation, k, uint64_t(head), diff, 0});
    if (tex[0].key != base_key) {
        const size_t plane = size_t(s) * s;
        const uint8_t* mask = v.pooled_mask && v.pooled_mask->size() >= plane * (head + 1) ? v.pooled_mask->data() + plane * head
                                                                                          : nullptr;
        tex[0].upload(app.renderer.pyramids(), pooled->head_data(head), s, s, mask, ImVec4(0, 0, float(n), float(n)), base_key, reduction);
    }
    // Detail: when the visible window is smaller than the texture side, show true cells instead of bins.
    const RunResult& r = *v.result;
    const MatrixViewState& vw = app.view;
    const double x0 = std::max(0.0, vw.x_min), x1 = std::min(double(n), vw.x_max);
    const double y0 = std::max(0.0, vw.y_min), y1 = std::min(double(n), vw.y_max);
    if (s >= n || !v.matrix || x1 - x0 > 0.9 * s || y1 - y0 > 0.9 * s) {
        tex[1].key = 0;
        return;
    }
    const int q = std::max(1, s / 32);
    auto start = [&](double a0, double a1) {
        const double centred = a0 - (s - (a1 - a0)) / 2;
        return std::clamp(int(std::floor(centred / q)) * q, 0, n - s);
    };
    const int c0 = start(x0, x1), r0 = start(y0, y1);
    const uint64_t key = key_of({snap.generation, k, uint64_t(head), diff, uint64_t(c0) + 1, uint64_t(r0) + 1});
    if (tex[1].key == key) return;
    const Tensor3* exact = nullptr;
    if (diff) {
        auto it = snap.exact_P.find(r.causal);
        if (it == snap.exact_P.end()) return;
        exact = it->second.get();
    }
    std::vector<float> block(size_t(s) * s);
    std::vector<uint8_t> mask;
    const bool has_mask = r.structure.mask.has_value() && !v.auxiliary;
    if (has_mask) mask.resize(block.size());
    for (int i = 0; i < s; ++i)
        for (int j = 0; j < s; ++j) {
            float val = v.matrix->at(head, r0 + i, c0 + j);
            if (exact) val -= exact->at(head, r0 + i, c0 + j);
            block[size_t(i) * s + j] = val;
            if (has_mask)
                mask[size_t(i) * s + j] = static_cast<uint8_t>(
                    r.structure.mask->at(head, position_of(snap, head, r0 + i), position_of(snap, head, c0 + j)));
        }
    tex[1].upload(app.renderer.pyramids(), block.data(), s, s, has_mask ? mask.data() : nullptr,
                  ImVec4(float(c0), float(r0), float(c0 + s), float(r0 + s)), key, reduction);
}

}  // namespace attnscope::gui
