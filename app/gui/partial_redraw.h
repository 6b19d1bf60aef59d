// attnscope — redraws only the pixels under the draw lists that changed since the last frame. With software GL the
// fill of every pixel is most of a frame's cost (an edit changes the status and the matrices' headers; a hover, one
// tooltip), and those frames take the cores the views compute on.
#pragma once
#include <epoxy/gl.h>
#include <imgui.h>

#include <cstdint>
#include <map>
#include <vector>

namespace attnscope::gui {

/// A box of framebuffer pixels, rows counted from the top: [x0, x1) × [y0, y1).
struct PixelBox {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool empty() const { return x1 <= x0 || y1 <= y0; }
    int64_t area() const { return empty() ? 0 : int64_t(x1 - x0) * (y1 - y0); }
};

/// The smallest box holding both (an empty one holds nothing).
PixelBox unite(const PixelBox& a, const PixelBox& b);
/// The pixels in both.
PixelBox intersect(const PixelBox& a, const PixelBox& b);
/// The pixels Dear ImGui's OpenGL backend lets a command with this clip rectangle touch: its glScissor box, with the
/// same float-to-int truncations, in a framebuffer `fb_h` pixels high (framebuffer scale 1, display at the origin).
PixelBox scissor_box_of(const ImVec4& clip, int fb_h);

/// What a user draw callback draws: a hash of everything it reads (a texture's new content must change it) and the
/// pixels it may touch.
struct CallbackFootprint {
    uint64_t hash = 0;
    PixelBox box;
};
/// Describes one command of a registered callback.
using CallbackFootprintFn = CallbackFootprint (*)(const ImDrawCmd& cmd, int fb_h);

/// Counts of what was redrawn, for measurements and the self-test's summary.
struct RedrawStats {
    int64_t frames = 0, full_frames = 0;
    double redrawn_fraction_sum = 0;  // over frames: redrawn pixels / framebuffer pixels
};

/// Draws ImGui's frames into a back buffer that keeps the last frame (frames are presented by copying boxes to the
/// front, frame_present.h), redrawing only the boxes whose draw lists changed.
///
/// Each draw list is read as a sequence of primitives: its triangles (three vertices and the clip rectangle, texture
/// and render state they are drawn with) and its callbacks (compared by their footprint). When the list at a position
/// in the draw order is the same list as last frame, only the primitives between the common prefix and the common
/// suffix of the two sequences changed, and their old and new boxes are redrawn; another list there has its old and
/// new boxes redrawn whole. Outside those boxes every pixel gets the same fragments in the same order as last frame,
/// so it keeps its value; inside them everything is cleared and drawn again in full order.
///
/// Contract with user callbacks: during a redraw a callback command's ClipRect holds the pixel box being redrawn
/// (integers, framebuffer coordinates), and the callback must not draw outside it.
class PartialRedraw {
public:
    /// Tells how to describe commands of `callback`; a list holding an unregistered callback is redrawn every frame.
    void describe_callback(ImDrawCallback callback, CallbackFootprintFn footprint) { m_callbacks[callback] = footprint; }
    /// Draws `data` into framebuffer 0's back buffer, which must hold the frame the last call drew: only the changed
    /// boxes, or everything when `full`, on the first frame, after a resize, when ImGui updates a texture, or at a
    /// framebuffer scale other than 1. Returns the boxes drawn (none when nothing changed).
    std::vector<PixelBox> render(ImDrawData* data, int fb_w, int fb_h, bool full);
    /// Draws `data` whole over framebuffer 0's back buffer and returns how many pixels differ from what render() left
    /// there (0 when the partial redraw was right; the self-test's invariant). Call right after render().
    int64_t pixels_differing_from_full_redraw(ImDrawData* data);
    /// Forgets the last frame (the next render() draws everything).
    void shutdown();
    /// Tests only: a changed list's box of the previous frame is not redrawn, the mistake that leaves a closed tooltip
    /// on screen; the self-test's invariant must catch it.
    void forget_old_boxes(bool forget) { m_forget_old_boxes = forget; }
    const RedrawStats& stats() const { return m_stats; }

private:
    /// A triangle, or a callback (no vertices; `state` holds its footprint).
    struct Primitive {
        ImDrawVert v[3];
        uint64_t state = 0;  // hash of the clip rectangle, texture and callback it is drawn with
        bool operator==(const Primitive& o) const;
    };
    struct ListState {
        const ImDrawList* list = nullptr;
        std::vector<Primitive> primitives;
        std::vector<PixelBox> boxes;  // the pixels each primitive may touch
        PixelBox box;                 // all of them
        bool always_redraw = false;   // holds a callback nobody described
    };
    ListState describe(const ImDrawList& list, int fb_h) const;
    std::vector<PixelBox> changed_boxes(const std::vector<ListState>& now) const;
    /// Appends the boxes of the primitives that differ between two frames of one list (after the common prefix and
    /// before the common suffix).
    void append_changed_primitives(const ListState& old, const ListState& cur, std::vector<PixelBox>& out) const;
    /// Clears each box and draws `data` inside it into the bound framebuffer.
    void draw_boxes(ImDrawData* data, const std::vector<PixelBox>& boxes) const;

    std::map<ImDrawCallback, CallbackFootprintFn> m_callbacks;
    std::vector<ListState> m_last;  // the lists of the frame the back buffer holds
    int m_w = 0, m_h = 0;           // its size
    bool m_forget_old_boxes = false;
    RedrawStats m_stats;
};

}  // namespace attnscope::gui
