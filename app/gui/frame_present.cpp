// attnscope — presenting frames by copying boxes or swapping (frame_present.h).
#include "app/gui/frame_present.h"

#include <epoxy/gl.h>
#include <epoxy/glx.h>
// GLFW after the GL loader so it does not pull in the system GL headers first.
#include <GLFW/glfw3.h>
#define GLFW_EXPOSE_NATIVE_X11
#define GLFW_EXPOSE_NATIVE_GLX
#include <GLFW/glfw3native.h>
#include <X11/Xutil.h>  // XGetPixel, XDestroyImage

#include <atomic>
#include <cstring>

namespace attnscope::gui {

namespace {

// Set by GLFW when the window system lost the window's pixels (an expose): the next present copies everything.
std::atomic<bool> g_exposed{false};

void on_refresh(GLFWwindow*) { g_exposed = true; }

void copy_sub_buffer(void* display, unsigned long drawable, int x, int y, int w, int h) {
    glXCopySubBufferMESA(static_cast<Display*>(display), drawable, x, y, w, h);
}

}  // namespace

FramePresenter::FramePresenter(GLFWwindow* window, bool allow_copy) : m_window(window) {
    if (!allow_copy) return;
    Display* display = glfwGetX11Display();
    const GLXWindow drawable = glfwGetGLXWindow(window);
    if (!display || !drawable || !epoxy_has_glx_extension(display, DefaultScreen(display), "GLX_MESA_copy_sub_buffer"))
        return;
    m_display = display, m_drawable = drawable, m_copy = &copy_sub_buffer;
    glfwSetWindowRefreshCallback(window, on_refresh);
}

void FramePresenter::present(const std::vector<PixelBox>& boxes, int fb_w, int fb_h) {
    if (!m_copy) {
        glfwSwapBuffers(m_window);
        return;
    }
    // glXCopySubBufferMESA takes the box's lower-left corner, rows counted from the bottom.
    if (g_exposed.exchange(false)) {
        m_copy(m_display, m_drawable, 0, 0, fb_w, fb_h);
        return;
    }
    if (m_skip_copies) return;
    for (const PixelBox& b : boxes)
        if (!b.empty()) m_copy(m_display, m_drawable, b.x0, fb_h - b.y1, b.x1 - b.x0, b.y1 - b.y0);
}

int64_t FramePresenter::pixels_front_differs_from_back(int fb_w, int fb_h) const {
    // The window's own pixels from the X server (what a person sees), against the back buffer.
    std::vector<uint32_t> back(size_t(fb_w) * size_t(fb_h));
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, fb_w, fb_h, GL_RGBA, GL_UNSIGNED_BYTE, back.data());
    Display* display = static_cast<Display*>(m_display);
    XSync(display, False);
    XImage* image = XGetImage(display, glfwGetX11Window(m_window), 0, 0, unsigned(fb_w), unsigned(fb_h), AllPlanes,
                              ZPixmap);
    if (!image) return int64_t(back.size());
    // 32-bit little-endian pixels (Xvfb's, and most servers') are read in place: XGetPixel per pixel is slow under ASan.
    const bool direct = image->bits_per_pixel == 32 && image->byte_order == LSBFirst && image->red_mask == 0xff0000 &&
                        image->green_mask == 0xff00 && image->blue_mask == 0xff;
    int64_t differing = 0;
    for (int y = 0; y < fb_h; ++y)
        for (int x = 0; x < fb_w; ++x) {
            const uint32_t rgba = back[size_t(fb_h - 1 - y) * size_t(fb_w) + size_t(x)];  // GL rows from the bottom
            unsigned long shown = 0;
            if (direct) std::memcpy(&shown, image->data + size_t(y) * size_t(image->bytes_per_line) + 4 * size_t(x), 4);
            else shown = XGetPixel(image, x, y);
            const unsigned r = unsigned(shown >> 16) & 0xff, g = unsigned(shown >> 8) & 0xff, b = unsigned(shown) & 0xff;
            differing += r != (rgba & 0xff) || g != ((rgba >> 8) & 0xff) || b != ((rgba >> 16) & 0xff);
        }
    XDestroyImage(image);
    return differing;
}

}  // namespace attnscope::gui
