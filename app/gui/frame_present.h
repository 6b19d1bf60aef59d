// attnscope — how a drawn frame reaches the window: by copying the boxes drawn to the front buffer where the driver
// can (the back buffer then keeps the whole last frame, so PartialRedraw may draw only what changed), else by swapping.
#pragma once
#include <cstdint>
#include <vector>

#include "app/gui/partial_redraw.h"

struct GLFWwindow;

namespace attnscope::gui {

/// Presents frames of one window.
class FramePresenter {
public:
    /// Looks for GLX_MESA_copy_sub_buffer (Mesa's drivers, software GL among them) on `window`'s display; without it
    /// frames are swapped whole. `allow_copy` false forces swapping (`gui --full-redraw`).
    FramePresenter(GLFWwindow* window, bool allow_copy);
    /// Whether the back buffer keeps the last frame drawn (frames are copied, never swapped).
    bool keeps_back_buffer() const { return m_copy != nullptr; }
    /// Shows the frame: copies `boxes` (framebuffer pixels, rows from the top) to the front buffer, or the whole
    /// back buffer after an expose; swaps when copying is not available.
    void present(const std::vector<PixelBox>& boxes, int fb_w, int fb_h);
    /// After present() with keeps_back_buffer(): how many pixels of the window (the front buffer) differ from the back
    /// buffer (0 when every box drawn reached the window; the self-test's invariant).
    int64_t pixels_front_differs_from_back(int fb_w, int fb_h) const;
    /// Tests only: present() copies nothing (the mistake of a box not copied); the self-test's invariant must catch it.
    void skip_copies(bool skip) { m_skip_copies = skip; }

private:
    using CopySubBuffer = void (*)(void* display, unsigned long drawable, int x, int y, int w, int h);
    GLFWwindow* m_window;
    void* m_display = nullptr;
    unsigned long m_drawable = 0;
    CopySubBuffer m_copy = nullptr;
    bool m_skip_copies = false;
};

}  // namespace attnscope::gui
