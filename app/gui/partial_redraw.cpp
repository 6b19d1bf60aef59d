// attnscope — which boxes of a frame changed, and drawing only those (partial_redraw.h).
#include "app/gui/partial_redraw.h"

#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace attnscope::gui {

namespace {

constexpr float kClearColor[4] = {0.1f, 0.1f, 0.12f, 1.0f};
// More boxes than this are merged: each box replays the whole draw data, so many small boxes cost vertex work. Both
// limits were measured against 4 boxes and 60% (docs/PERFORMANCE.reasons.md): the first view of an edit changes about
// two thirds of the window, and drawing only those boxes beat drawing it whole.
constexpr size_t kMaxBoxes = 8;
// Above this share of the window, one full redraw is cheaper than replaying the draw data per box.
constexpr double kFullRedrawShare = 0.9;

uint64_t mix(uint64_t h, uint64_t word) {
    h ^= word;
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

uint64_t hash_bytes(const void* data, size_t n, uint64_t h) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t word;
        std::memcpy(&word, bytes + i, 8);
        h = mix(h, word);
    }
    uint64_t tail = 0;
    if (i < n) std::memcpy(&tail, bytes + i, n - i);
    return mix(h, tail ^ (uint64_t(n) << 56));
}

template <class T>
uint64_t hash_value(const T& value, uint64_t h) {
    return hash_bytes(&value, sizeof value, h);
}

/// One of the backend's standard callbacks (reset the render state, set the sampler): they change state and draw
/// nothing, so their pointer in the hash is all there is to compare.
bool is_state_callback(ImDrawCallback callback) {
    const ImGuiPlatformIO& io = ImGui::GetPlatformIO();
    return callback == io.DrawCallback_ResetRenderState || callback == io.DrawCallback_SetSamplerLinear ||
           callback == io.DrawCallback_SetSamplerNearest || callback == io.DrawCallback_SetSamplerFromTex;
}

/// The pixels a triangle may touch before clipping (a pixel is drawn when its centre lies inside).
PixelBox triangle_box(const ImDrawVert (&v)[3]) {
    const float x0 = std::min({v[0].pos.x, v[1].pos.x, v[2].pos.x}), x1 = std::max({v[0].pos.x, v[1].pos.x, v[2].pos.x});
    const float y0 = std::min({v[0].pos.y, v[1].pos.y, v[2].pos.y}), y1 = std::max({v[0].pos.y, v[1].pos.y, v[2].pos.y});
    if (!(x1 >= x0 && y1 >= y0)) return {};  // NaN
    return {int(std::floor(x0)), int(std::floor(y0)), int(std::ceil(x1)) + 1, int(std::ceil(y1)) + 1};
}

/// Whether ImGui asks the backend to create, update or destroy a texture this frame (the font atlas grows): texels
/// change under unchanged lists, so the frame is drawn whole.
bool textures_change(const ImDrawData& data) {
    if (!data.Textures) return false;
    for (const ImTextureData* t : *data.Textures)
        if (t->Status != ImTextureStatus_OK) return true;
    return false;
}

/// Merges boxes that overlap, then the pair whose union adds the fewest pixels until at most kMaxBoxes are left.
std::vector<PixelBox> merge(std::vector<PixelBox> boxes) {
    for (bool merged = true; merged;) {
        merged = false;
        for (size_t a = 0; a < boxes.size() && !merged; ++a)
            for (size_t b = a + 1; b < boxes.size() && !merged; ++b)
                if (!intersect(boxes[a], boxes[b]).empty()) {
                    boxes[a] = unite(boxes[a], boxes[b]);
                    boxes.erase(boxes.begin() + b);
                    merged = true;
                }
    }
    while (boxes.size() > kMaxBoxes) {
        size_t best_a = 0, best_b = 1;
        int64_t best_cost = INT64_MAX;
        for (size_t a = 0; a < boxes.size(); ++a)
            for (size_t b = a + 1; b < boxes.size(); ++b) {
                const int64_t cost = unite(boxes[a], boxes[b]).area() - boxes[a].area() - boxes[b].area();
                if (cost < best_cost) best_cost = cost, best_a = a, best_b = b;
            }
        boxes[best_a] = unite(boxes[best_a], boxes[best_b]);
        boxes.erase(boxes.begin() + best_b);
    }
    return boxes;
}

ImVec4 as_clip_rect(const PixelBox& b) { return ImVec4(float(b.x0), float(b.y0), float(b.x1), float(b.y1)); }

}  // namespace

PixelBox unite(const PixelBox& a, const PixelBox& b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    return {std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1), std::max(a.y1, b.y1)};
}

PixelBox intersect(const PixelBox& a, const PixelBox& b) {
    return {std::max(a.x0, b.x0), std::max(a.y0, b.y0), std::min(a.x1, b.x1), std::min(a.y1, b.y1)};
}

PixelBox scissor_box_of(const ImVec4& clip, int fb_h) {
    if (clip.z <= clip.x || clip.w <= clip.y) return {};
    // imgui_impl_opengl3: glScissor((int)min.x, (int)(fb_h - max.y), (int)(max.x - min.x), (int)(max.y - min.y)).
    const int x = int(clip.x), y_gl = int(float(fb_h) - clip.w);
    const int w = int(clip.z - clip.x), h = int(clip.w - clip.y);
    return {x, fb_h - y_gl - h, x + w, fb_h - y_gl};
}

bool PartialRedraw::Primitive::operator==(const Primitive& o) const {
    return state == o.state && std::memcmp(v, o.v, sizeof v) == 0;
}

PartialRedraw::ListState PartialRedraw::describe(const ImDrawList& list, int fb_h) const {
    static_assert(sizeof(ImDrawVert) == 20, "ImDrawVert without padding: primitives compare by memcmp");
    ListState s;
    s.list = &list;
    size_t triangles = 0;
    for (const ImDrawCmd& cmd : list.CmdBuffer) triangles += cmd.UserCallback ? 1 : cmd.ElemCount / 3;
    s.primitives.reserve(triangles);
    s.boxes.reserve(triangles);
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
        uint64_t state = hash_value(cmd.ClipRect, 0x5EED);
        state = hash_value(cmd.TexRef, state);
        state = hash_value(cmd.UserCallback, state);
        if (cmd.UserCallback != nullptr) {
            Primitive p{};
            PixelBox box;
            if (!is_state_callback(cmd.UserCallback)) {
                const auto it = m_callbacks.find(cmd.UserCallback);
                if (it == m_callbacks.end()) {
                    s.always_redraw = true;
                    box = scissor_box_of(cmd.ClipRect, fb_h);
                } else {
                    const CallbackFootprint f = it->second(cmd, fb_h);
                    state = mix(state, f.hash);
                    box = f.box;
                }
            }
            p.state = state;
            s.primitives.push_back(p);
            s.boxes.push_back(box);
            s.box = unite(s.box, box);
            continue;
        }
        const PixelBox clip = scissor_box_of(cmd.ClipRect, fb_h);
        const ImDrawIdx* idx = list.IdxBuffer.Data + cmd.IdxOffset;
        const ImDrawVert* vtx = list.VtxBuffer.Data + cmd.VtxOffset;
        for (unsigned e = 0; e + 3 <= cmd.ElemCount; e += 3) {
            Primitive p;
            for (int k = 0; k < 3; ++k) p.v[k] = vtx[idx[e + unsigned(k)]];
            p.state = state;
            const PixelBox box = intersect(triangle_box(p.v), clip);
            s.primitives.push_back(p);
            s.boxes.push_back(box);
            s.box = unite(s.box, box);
        }
    }
    return s;
}

void PartialRedraw::append_changed_primitives(const ListState& old, const ListState& cur,
                                              std::vector<PixelBox>& out) const {
    const size_t n_old = old.primitives.size(), n_cur = cur.primitives.size();
    size_t prefix = 0;
    while (prefix < n_old && prefix < n_cur && old.primitives[prefix] == cur.primitives[prefix]) ++prefix;
    size_t suffix = 0;
    while (suffix < n_old - prefix && suffix < n_cur - prefix &&
           old.primitives[n_old - 1 - suffix] == cur.primitives[n_cur - 1 - suffix])
        ++suffix;
    PixelBox was, is;
    for (size_t i = prefix; i < n_old - suffix; ++i) was = unite(was, old.boxes[i]);
    for (size_t i = prefix; i < n_cur - suffix; ++i) is = unite(is, cur.boxes[i]);
    if (!was.empty() && !m_forget_old_boxes) out.push_back(was);
    if (!is.empty()) out.push_back(is);
}

std::vector<PixelBox> PartialRedraw::changed_boxes(const std::vector<ListState>& now) const {
    std::vector<PixelBox> boxes;
    const size_t n = std::max(now.size(), m_last.size());
    for (size_t i = 0; i < n; ++i) {
        const ListState* cur = i < now.size() ? &now[i] : nullptr;
        const ListState* old = i < m_last.size() ? &m_last[i] : nullptr;
        if (cur && old && cur->list == old->list && !cur->always_redraw) {
            append_changed_primitives(*old, *cur, boxes);
            continue;
        }
        if (cur && !cur->box.empty()) boxes.push_back(cur->box);
        if (old && !old->box.empty() && !m_forget_old_boxes) boxes.push_back(old->box);
    }
    return boxes;
}

void PartialRedraw::draw_boxes(ImDrawData* data, const std::vector<PixelBox>& boxes) const {
    const int fb_h = int(data->DisplaySize.y * data->FramebufferScale.y);
    std::vector<ImVec4> clips;
    for (const PixelBox& box : boxes) {
        glEnable(GL_SCISSOR_TEST);
        glScissor(box.x0, fb_h - box.y1, box.x1 - box.x0, box.y1 - box.y0);
        glClearColor(kClearColor[0], kClearColor[1], kClearColor[2], kClearColor[3]);
        glClear(GL_COLOR_BUFFER_BIT);
        // Every command is clipped to the box in the backend's own integer scissor space, so a pixel inside the box
        // gets exactly the fragments a full redraw gives it.
        clips.clear();
        for (ImDrawList* list : data->CmdLists)
            for (ImDrawCmd& cmd : list->CmdBuffer) {
                clips.push_back(cmd.ClipRect);
                if (cmd.UserCallback != nullptr && !is_state_callback(cmd.UserCallback))
                    cmd.ClipRect = as_clip_rect(box);
                else if (cmd.UserCallback == nullptr) {
                    const PixelBox c = intersect(scissor_box_of(cmd.ClipRect, fb_h), box);
                    cmd.ClipRect = c.empty() ? ImVec4(0, 0, 0, 0) : as_clip_rect(c);
                }
            }
        ImGui_ImplOpenGL3_RenderDrawData(data);
        size_t k = 0;
        for (ImDrawList* list : data->CmdLists)
            for (ImDrawCmd& cmd : list->CmdBuffer) cmd.ClipRect = clips[k++];
    }
    glDisable(GL_SCISSOR_TEST);
}

std::vector<PixelBox> PartialRedraw::render(ImDrawData* data, int fb_w, int fb_h, bool full) {
    const bool resized = fb_w != m_w || fb_h != m_h;
    m_w = fb_w, m_h = fb_h;
    const bool plain_scale = data->FramebufferScale.x == 1.0f && data->FramebufferScale.y == 1.0f &&
                             data->DisplayPos.x == 0.0f && data->DisplayPos.y == 0.0f;
    std::vector<ListState> now;
    now.reserve(size_t(data->CmdLists.Size));
    for (const ImDrawList* list : data->CmdLists) now.push_back(describe(*list, fb_h));
    const PixelBox whole{0, 0, fb_w, fb_h};
    std::vector<PixelBox> boxes;
    if (full || resized || m_last.empty() || !plain_scale || textures_change(*data)) {
        boxes.push_back(whole);
    } else {
        for (const PixelBox& b : changed_boxes(now))
            if (const PixelBox c = intersect(b, whole); !c.empty()) boxes.push_back(c);
        boxes = merge(std::move(boxes));
        int64_t area = 0;
        for (const PixelBox& b : boxes) area += b.area();
        if (double(area) > kFullRedrawShare * double(whole.area())) boxes.assign(1, whole);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    draw_boxes(data, boxes);
    m_last = std::move(now);
    int64_t redrawn = 0;
    for (const PixelBox& b : boxes) redrawn += b.area();
    ++m_stats.frames;
    m_stats.full_frames += redrawn == whole.area();
    m_stats.redrawn_fraction_sum += whole.area() ? double(redrawn) / double(whole.area()) : 0.0;
    return boxes;
}

int64_t PartialRedraw::pixels_differing_from_full_redraw(ImDrawData* data) {
    // Both images come from the back buffer itself: another format (an RGBA8 texture) blends with other rounding.
    const int w = m_w, h = m_h;
    std::vector<uint32_t> kept(size_t(w) * size_t(h)), fresh(kept.size());
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, kept.data());
    draw_boxes(data, {PixelBox{0, 0, w, h}});
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, fresh.data());
    int64_t differing = 0;
    for (size_t i = 0; i < kept.size(); ++i) differing += kept[i] != fresh[i];
    return differing;
}

void PartialRedraw::shutdown() {
    m_last.clear();
    m_w = m_h = 0;
}

}  // namespace attnscope::gui
