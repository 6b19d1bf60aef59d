// attnscope — matrices as OpenGL textures drawn by the heatmap shader (shaders/heatmap.*), inside ImGui.
// The CPU truth (a pooled Tensor3 head, a reason mask) is mirrored into textures through MatrixTexture only;
// drawing goes through an ImDrawList callback so a heatmap sits in an ImPlot plot like any other item.
#pragma once
#include <epoxy/gl.h>
#include <imgui.h>

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "core/analysis/colormap.h"
#include "core/tensor.h"
#include "core/reason.h"
#include "gl_interop.h"

namespace attnscope::gui {

/// How values map to colours.
enum class ScaleMode : int {
    Linear = 0,         // v / vmax
    Log = 1,            // log10 v over `decades` below vmax
    Diverging = 2,      // 0 in the middle, ±vmax at the ends
    DivergingLog = 3,   // symmetric log: sign(v)·log10|v| over `decades`
};

/// RGB of a reason (the mask overlay, legends and tooltips use the same table).
ImVec4 reason_color(Reason r);

/// A GPU mirror of (part of) one head of a matrix and its reason mask; re-uploaded only when its key changes.
struct MatrixTexture {
    GLuint values = 0;      // R32F
    GLuint mask = 0;        // R8UI, 0 when there is none
    int rows = 0, cols = 0; // texture size in texels
    ImVec4 cells;           // matrix region covered, in cells: (col0, row0, col1, row1)
    uint64_t key = 0;       // what is uploaded (caller-defined hash); 0 = nothing
    /// Uploads a (rows, cols) row-major block covering `region`; `mask` (rows, cols) may be null.
    void upload(const float* data, int rows, int cols, const uint8_t* mask, ImVec4 region, uint64_t new_key);
    void release();
    /// Same as upload() for a (rows, cols) row-major block in *device* memory (a result still on the GPU):
    /// written by `interop` straight into the texture (app/gui/gl_interop.h); host data goes through upload().
    void upload_device(GlInterop& interop, const float* device, int rows, int cols, const uint8_t* mask,
                       ImVec4 region, uint64_t new_key);
    GlInterop* interop = nullptr;  // set once a device upload registered `values` with CUDA (release() forgets it)
};

/// One heatmap to draw this frame (screen coordinates are ImGui's).
struct HeatmapDraw {
    const MatrixTexture* texture = nullptr;
    Colormap colormap = Colormap::Viridis;
    ScaleMode mode = ScaleMode::Linear;
    float vmax = 1, decades = 4;
    bool show_mask = false, causal = false;
    bool tint = true;           // tint allowed cells by reason (else only dim forbidden cells)
    ImVec2 top_left, bottom_right;  // where the whole matrix lands on screen
    ImVec4 clip;                // scissor rectangle (x0, y0, x1, y1)
};

/// Owns the shader program and colormap textures; queues heatmap draws into ImGui draw lists.
class HeatmapRenderer {
public:
    /// Compiles the shaders and builds 1-D colormap textures; throws Error when the driver refuses them.
    void init();
    void shutdown();
    /// Forgets last frame's queued draws (call once per frame before drawing panels).
    void begin_frame() { m_draws.clear(); }
    /// Queues `d` into `list` (a callback that draws it, then ImGui's render state is restored).
    void draw(ImDrawList* list, const HeatmapDraw& d);

private:
    static void callback(const ImDrawList* list, const ImDrawCmd* cmd);
    void render(const HeatmapDraw& d) const;

    GLuint m_program = 0, m_vao = 0, m_dummy_mask = 0;
    std::array<GLuint, 2> m_colormaps{};
    std::deque<std::pair<const HeatmapRenderer*, HeatmapDraw>> m_draws;  // stable addresses for callbacks
};

}  // namespace attnscope::gui
