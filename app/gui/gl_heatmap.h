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
#include "app/gui/gl_interop.h"
#include "app/gui/partial_redraw.h"

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

/// How the cells under one screen pixel become one value (the reason mask always keeps its most salient reason).
enum class CellReduction : int {
    Max = 0,           // attention weights: the largest (a one-key column stays visible)
    SignedMaxAbs = 1,  // differences and signed matrices: the entry of largest magnitude, with its sign
};

/// The programs and framebuffer that build a texture's reduction pyramid on the GPU (in the GUI thread's GL context),
/// and where a pyramid is built: on the host for small textures and under a software renderer. HeatmapRenderer owns
/// the one the GUI uses.
class PyramidBuilder {
public:
    /// Compiles the reduction shaders and reads the renderer's name; throws Error when the driver refuses them.
    void init();
    /// Frees the programs and the framebuffer (init() may be called again).
    void release();
    /// Whether a (rows, cols) texture's pyramid is built on the host rather than by these shaders.
    bool on_host(int rows, int cols) const;
    /// Writes levels 1 … levels − 1 of `texture` (levels must be allocated), each from the one below.
    void build(GLuint texture, int levels, int cols, int rows, bool is_mask, bool signed_values) const;

private:
    GLuint values = 0, mask = 0, fbo = 0, vao = 0;
    bool m_software = false;  // llvmpipe or softpipe: every pyramid is built on the host
};

/// A GPU mirror of (part of) one head of a matrix and its reason mask; re-uploaded only when its key changes. Both
/// textures carry their reduction pyramid as mip levels (built at upload: on the host when small or when the renderer
/// is software, else on the GPU), so a pixel of any size reads at most 8×8 texels.
struct MatrixTexture {
    GLuint values = 0;      // R32F
    GLuint mask = 0;        // R8UI, 0 when there is none
    int rows = 0, cols = 0; // texture size in texels
    int levels = 1;         // mip levels of both textures
    CellReduction reduction = CellReduction::Max;  // how the pyramid and the pixels reduce values
    ImVec4 cells;           // matrix region covered, in cells: (col0, row0, col1, row1)
    uint64_t key = 0;       // what is uploaded (caller-defined hash); 0 = nothing
    /// Uploads a (rows, cols) row-major block covering `region`; `mask` (rows, cols) may be null.
    void upload(const PyramidBuilder& pyramids, const float* data, int rows, int cols, const uint8_t* mask, ImVec4 region,
                uint64_t new_key, CellReduction reduction = CellReduction::Max);
    void release();
    /// Same as upload() for a (rows, cols) row-major block in *device* memory (a result still on the GPU):
    /// written by `interop` straight into the texture (app/gui/gl_interop.h); host data goes through upload().
    void upload_device(const PyramidBuilder& pyramids, GlInterop& interop, const float* device, int rows, int cols, const uint8_t* mask,
                       ImVec4 region, uint64_t new_key, CellReduction reduction = CellReduction::Max);
    GlInterop* interop = nullptr;  // set once a device upload registered `values` with CUDA (release() forgets it)

    /// upload() with the pyramid built on the host (core/figure/reduction_pyramid.h) or by the GPU's shaders, as
    /// asked; upload() picks the host for small textures.
    void upload_built(const PyramidBuilder& pyramids, const float* data, int rows, int cols, const uint8_t* mask,
                      ImVec4 region, uint64_t new_key, CellReduction reduction, bool host_pyramid);

private:
    void allocate(const float* data, int rows, int cols, const uint8_t* mask, bool host_pyramid);
    void build_pyramid(const PyramidBuilder& pyramids);
};

/// Texels of levels 1 and up where a (rows, cols) matrix's pyramid built on the host under `host_reduction` differs
/// from the one the GPU builds under `reduction`, values and mask together (the self-test's check that both paths
/// follow one rule: pass the same reduction; a different one is the check's own fault test). Uses the calling
/// thread's GL context.
int64_t texels_where_pyramids_differ(const PyramidBuilder& pyramids, const float* data, const uint8_t* mask, int rows,
                                     int cols, CellReduction reduction, CellReduction host_reduction);

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
    /// Compiles the shaders, builds 1-D colormap textures and notes a software renderer (whose pyramids are built on
    /// the host); throws Error when the driver refuses the shaders.
    void init();
    void shutdown();
    /// Whether a pixel reduces every cell it covers (the default) or shows the one cell at its centre (`gui
    /// --pixel-reduction nearest`: what plain texture sampling shows, for tests that prove the reduction matters).
    void set_reduce_cells(bool reduce) { m_reduce_cells = reduce; }
    bool reduces_cells() const { return m_reduce_cells; }
    /// Builds the reduction pyramids of the textures this renderer draws (MatrixTexture::upload takes it).
    const PyramidBuilder& pyramids() const { return m_pyramids; }
    /// Forgets last frame's queued draws (call once per frame before drawing panels).
    void begin_frame() { m_draws.clear(); }
    /// Queues `d` into `list` (a callback that draws it, then ImGui's render state is restored).
    void draw(ImDrawList* list, const HeatmapDraw& d);
    /// The callback draw() queues (PartialRedraw asks footprint() about its commands).
    static ImDrawCallback draw_callback() { return &HeatmapRenderer::callback; }
    /// What a queued heatmap reads (its placement, scale and texture key) and the pixels it may touch.
    static CallbackFootprint footprint(const ImDrawCmd& cmd, int fb_h);

private:
    static void callback(const ImDrawList* list, const ImDrawCmd* cmd);
    /// Draws `d` inside `allowed` (the pixels PartialRedraw is redrawing).
    void render(const HeatmapDraw& d, const PixelBox& allowed) const;

    GLuint m_program = 0, m_vao = 0, m_dummy_mask = 0;
    PyramidBuilder m_pyramids;
    bool m_reduce_cells = true;
    std::array<GLuint, 2> m_colormaps{};
    std::deque<std::pair<const HeatmapRenderer*, HeatmapDraw>> m_draws;  // stable addresses for callbacks
};

}  // namespace attnscope::gui
