// attnscope — heatmap textures and the shader callback.
#include "app/gui/gl_heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "attnscope_shaders.h"
#include "core/error.h"
#include "core/figure/reduction_pyramid.h"

namespace attnscope::gui {

ImVec4 reason_color(Reason r) {
    const auto c = reason_rgb(r);
    return {c[0], c[1], c[2], 1};
}

namespace {

// Where a host texture's pyramid is built. A GPU renders each level in microseconds, but the draw calls and their
// synchronisation cost more than the host's fold for small textures; a software renderer (llvmpipe) flushes its
// pipeline for every level, which cost 0.2–2 ms per 127×127 texture (a first view uploads 13) and 10–33 ms per
// 1024×1024 one with its mask, against 4.5–8 ms for the host. So: on the host up to this many cells, and always
// under a software renderer; device uploads are reduced on the GPU.
constexpr int64_t kHostPyramidMaxCells = 512 * 512;

GLuint compile(GLenum kind, const char* source, const char* what) {
    GLuint s = glCreateShader(kind);
    glShaderSource(s, 1, &source, nullptr);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048] = {};
        glGetShaderInfoLog(s, sizeof log, nullptr, log);
        throw Error(std::string("the graphics driver rejected shader ") + what + ": " + log +
                    " (an OpenGL 3.3 driver is required; try LIBGL_ALWAYS_SOFTWARE=1)");
    }
    return s;
}

GLuint link(const char* vert, const char* frag, const char* what) {
    const GLuint vs = compile(GL_VERTEX_SHADER, vert, "heatmap.vert");
    const GLuint fs = compile(GL_FRAGMENT_SHADER, frag, what);
    const GLuint program = glCreateProgram();
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) throw Error(std::string("the graphics driver could not link shader ") + what + " (OpenGL 3.3 required)");
    return program;
}

/// Salience of every reason code as the shaders read it (32 entries; codes past Reason::Count never win).
std::array<GLint, 32> salience_table() {
    std::array<GLint, 32> t{};
    t.fill(-1);
    for (int r = 0; r < static_cast<int>(Reason::Count); ++r) t[size_t(r)] = reason_salience(static_cast<Reason>(r));
    return t;
}


/// Allocates every level of the bound 2-D texture; level 0 gets `data`, level k > 0 `upper[k − 1]` when given
/// (else its storage only, for the GPU to fill).
void allocate_levels(GLint internal, GLenum format, GLenum type, int cols, int rows, int levels, const void* data,
                     const std::vector<const void*>& upper = {}) {
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_BASE_LEVEL, 0);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, levels - 1);
    for (int level = 0; level < levels; ++level)
        glTexImage2D(GL_TEXTURE_2D, level, internal, std::max(1, cols >> level), std::max(1, rows >> level), 0, format,
                     type, level == 0 ? data : size_t(level - 1) < upper.size() ? upper[size_t(level - 1)] : nullptr);
}

/// The data pointers of a host pyramid's levels, for allocate_levels.
template <class T>
std::vector<const void*> level_pointers(const std::vector<std::vector<T>>& levels) {
    std::vector<const void*> out;
    for (const auto& l : levels) out.push_back(l.data());
    return out;
}

/// PoolMode of a heatmap reduction (the host pyramid's fold).
PoolMode pool_mode_of(CellReduction how) {
    return how == CellReduction::SignedMaxAbs ? PoolMode::SignedMaxAbs : PoolMode::Max;
}

/// Level `level` of the bound 2-D texture read back, (w × h) texels of T.
template <class T>
std::vector<T> read_level(GLuint texture, int level, int w, int h, GLenum format, GLenum type) {
    std::vector<T> out(size_t(w) * size_t(h));
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTexImage(GL_TEXTURE_2D, level, format, type, out.data());
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glBindTexture(GL_TEXTURE_2D, 0);
    return out;
}

}  // namespace

void PyramidBuilder::init() {
    const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    const std::string name = renderer ? renderer : "";
    m_software = name.find("llvmpipe") != std::string::npos || name.find("softpipe") != std::string::npos;
    values = link(shaders::kHeatmapVert, shaders::kReduceValuesFrag, "reduce_values.frag");
    mask = link(shaders::kHeatmapVert, shaders::kReduceMaskFrag, "reduce_mask.frag");
    glGenFramebuffers(1, &fbo);
    glGenVertexArrays(1, &vao);
}

void PyramidBuilder::release() {
    if (values) glDeleteProgram(values), glDeleteProgram(mask), glDeleteFramebuffers(1, &fbo), glDeleteVertexArrays(1, &vao);
    values = mask = fbo = vao = 0;
}

bool PyramidBuilder::on_host(int rows, int cols) const { return m_software || int64_t(rows) * cols <= kHostPyramidMaxCells; }

void PyramidBuilder::build(GLuint texture, int levels, int cols, int rows, bool is_mask, bool signed_values) const {
    GLint old_fbo = 0, old_program = 0, old_viewport[4] = {};
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &old_fbo);
    glGetIntegerv(GL_CURRENT_PROGRAM, &old_program);
    glGetIntegerv(GL_VIEWPORT, old_viewport);
    const GLboolean scissor = glIsEnabled(GL_SCISSOR_TEST), blend = glIsEnabled(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_BLEND);
    const GLuint program = is_mask ? mask : values;
    glUseProgram(program);
    glBindVertexArray(vao);
    glUniform1i(glGetUniformLocation(program, "u_src"), 0);
    glUniform4f(glGetUniformLocation(program, "u_rect"), -1, 1, 1, -1);  // the whole target, row 0 at the top
    if (is_mask) {
        const std::array<GLint, 32> salience = salience_table();
        glUniform1iv(glGetUniformLocation(program, "u_reason_salience"), 32, salience.data());
    } else {
        glUniform1i(glGetUniformLocation(program, "u_signed"), signed_values ? 1 : 0);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glActiveTexture(GL_TEXTURE0);
    glBindSampler(0, 0);
    glBindTexture(GL_TEXTURE_2D, texture);
    for (int level = 1; level < levels; ++level) {
        // Read only level − 1 while level is written (no feedback loop), then write level.
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_BASE_LEVEL, level - 1);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, level - 1);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, level);
        const int w = std::max(1, cols >> level), h = std::max(1, rows >> level);
        glViewport(0, 0, w, h);
        glUniform2i(glGetUniformLocation(program, "u_dst_size"), w, h);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_BASE_LEVEL, 0);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, levels - 1);
    glBindTexture(GL_TEXTURE_2D, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, GLuint(old_fbo));
    glViewport(old_viewport[0], old_viewport[1], old_viewport[2], old_viewport[3]);
    glUseProgram(GLuint(old_program));
    if (scissor) glEnable(GL_SCISSOR_TEST);
    if (blend) glEnable(GL_BLEND);
}

void MatrixTexture::allocate(const float* data, int r, int c, const uint8_t* mask_cells, bool host_pyramid) {
    // glTexImage2D gives the texture new storage: a CUDA registration of the old one must go first.
    if (interop && values) interop->forget(values);
    rows = r, cols = c, levels = pyramid_level_count(r, c);
    if (!values) glGenTextures(1, &values);
    glBindTexture(GL_TEXTURE_2D, values);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    if (host_pyramid) {
        const auto upper = value_pyramid(data, r, c, pool_mode_of(reduction));
        allocate_levels(GL_R32F, GL_RED, GL_FLOAT, cols, rows, levels, data, level_pointers(upper));
    } else {
        allocate_levels(GL_R32F, GL_RED, GL_FLOAT, cols, rows, levels, data);
    }
    if (mask_cells) {
        if (!mask) glGenTextures(1, &mask);
        glBindTexture(GL_TEXTURE_2D, mask);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        if (host_pyramid) {
            const auto upper = mask_pyramid(mask_cells, r, c);
            allocate_levels(GL_R8UI, GL_RED_INTEGER, GL_UNSIGNED_BYTE, cols, rows, levels, mask_cells,
                            level_pointers(upper));
        } else {
            allocate_levels(GL_R8UI, GL_RED_INTEGER, GL_UNSIGNED_BYTE, cols, rows, levels, mask_cells);
        }
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    } else if (mask) {
        glDeleteTextures(1, &mask);
        mask = 0;
    }
    glBindTexture(GL_TEXTURE_2D, 0);
}

void MatrixTexture::build_pyramid(const PyramidBuilder& b) {
    if (levels <= 1) return;
    b.build(values, levels, cols, rows, false, reduction == CellReduction::SignedMaxAbs);
    if (mask) b.build(mask, levels, cols, rows, true, false);
}

void MatrixTexture::upload(const PyramidBuilder& pyramids, const float* data, int r, int c, const uint8_t* mask_cells,
                           ImVec4 region, uint64_t new_key, CellReduction how) {
    upload_built(pyramids, data, r, c, mask_cells, region, new_key, how, pyramids.on_host(r, c));
}

void MatrixTexture::upload_built(const PyramidBuilder& pyramids, const float* data, int r, int c,
                                 const uint8_t* mask_cells, ImVec4 region, uint64_t new_key, CellReduction how,
                                 bool host_pyramid) {
    reduction = how, cells = region;
    allocate(data, r, c, mask_cells, host_pyramid);
    if (!host_pyramid) build_pyramid(pyramids);
    key = new_key;
}

void MatrixTexture::release() {
    if (interop && values) interop->forget(values);
    interop = nullptr;
    if (values) glDeleteTextures(1, &values);
    if (mask) glDeleteTextures(1, &mask);
    values = mask = 0;
    key = 0;
}

void MatrixTexture::upload_device(const PyramidBuilder& pyramids, GlInterop& link, const float* device, int r, int c, const uint8_t* mask_cells,
                                  ImVec4 region, uint64_t new_key, CellReduction how) {
    // Storage (and the mask) exactly as for a host upload, with no texel data; then the device copy fills level 0
    // and the pyramid is built from it on the GPU.
    reduction = how, cells = region;
    allocate(nullptr, r, c, mask_cells, false);
    interop = &link;
    link.write_texture(values, device, r, c);
    build_pyramid(pyramids);
    key = new_key;
}

int64_t texels_where_pyramids_differ(const PyramidBuilder& pyramids, const float* data, const uint8_t* mask_cells, int r,
                                     int c, CellReduction how, CellReduction host_how) {
    MatrixTexture host, gpu;
    host.upload_built(pyramids, data, r, c, mask_cells, ImVec4(0, 0, float(c), float(r)), 1, host_how, true);
    gpu.upload_built(pyramids, data, r, c, mask_cells, ImVec4(0, 0, float(c), float(r)), 1, how, false);
    int64_t differ = 0;
    for (int level = 1; level < host.levels; ++level) {
        const int w = std::max(1, c >> level), h = std::max(1, r >> level);
        const auto a = read_level<float>(host.values, level, w, h, GL_RED, GL_FLOAT);
        const auto b = read_level<float>(gpu.values, level, w, h, GL_RED, GL_FLOAT);
        for (size_t k = 0; k < a.size(); ++k) differ += std::memcmp(&a[k], &b[k], sizeof(float)) != 0;
        if (mask_cells) {
            const auto ma = read_level<uint8_t>(host.mask, level, w, h, GL_RED_INTEGER, GL_UNSIGNED_BYTE);
            const auto mb = read_level<uint8_t>(gpu.mask, level, w, h, GL_RED_INTEGER, GL_UNSIGNED_BYTE);
            for (size_t k = 0; k < ma.size(); ++k) differ += ma[k] != mb[k];
        }
    }
    host.release(), gpu.release();
    return differ;
}

void HeatmapRenderer::init() {
    m_program = link(shaders::kHeatmapVert, shaders::kHeatmapFrag, "heatmap.frag");
    m_pyramids.init();  // compiled now, so a driver that refuses it says so at start
    glGenVertexArrays(1, &m_vao);
    for (int k = 0; k < 2; ++k) {
        const auto& table = colormap_table(k == 0 ? Colormap::Viridis : Colormap::Diverging);
        glGenTextures(1, &m_colormaps[k]);
        glBindTexture(GL_TEXTURE_1D, m_colormaps[k]);
        glTexParameteri(GL_TEXTURE_1D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_1D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_1D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexImage1D(GL_TEXTURE_1D, 0, GL_RGB32F, 256, 0, GL_RGB, GL_FLOAT, table.data());
    }
    glBindTexture(GL_TEXTURE_1D, 0);
    const uint8_t one = 1;
    glGenTextures(1, &m_dummy_mask);
    glBindTexture(GL_TEXTURE_2D, m_dummy_mask);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8UI, 1, 1, 0, GL_RED_INTEGER, GL_UNSIGNED_BYTE, &one);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glBindTexture(GL_TEXTURE_2D, 0);
}

void HeatmapRenderer::shutdown() {
    if (m_program) glDeleteProgram(m_program);
    if (m_vao) glDeleteVertexArrays(1, &m_vao);
    for (GLuint& t : m_colormaps)
        if (t) glDeleteTextures(1, &t);
    if (m_dummy_mask) glDeleteTextures(1, &m_dummy_mask);
    m_program = m_vao = m_dummy_mask = 0;
    m_pyramids.release();
}

void HeatmapRenderer::draw(ImDrawList* list, const HeatmapDraw& d) {
    if (!d.texture || !d.texture->values || !m_program) return;
    m_draws.emplace_back(this, d);
    list->AddCallback(&HeatmapRenderer::callback, &m_draws.back());
    list->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

namespace {

using QueuedHeatmap = std::pair<const HeatmapRenderer*, HeatmapDraw>;

int framebuffer_height() {
    return int(ImGui::GetMainViewport()->Size.y * ImGui::GetIO().DisplayFramebufferScale.y);
}

/// The pixels `d` may touch: its clip rectangle in framebuffer pixels, truncated as glScissor gets it.
PixelBox clip_box(const HeatmapDraw& d, int fb_h) {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
    return scissor_box_of(ImVec4((d.clip.x - vp->Pos.x) * scale.x, (d.clip.y - vp->Pos.y) * scale.y,
                                 (d.clip.z - vp->Pos.x) * scale.x, (d.clip.w - vp->Pos.y) * scale.y),
                          fb_h);
}

template <class T>
uint64_t fold(uint64_t h, const T& value) {
    uint64_t word = 0;
    static_assert(sizeof(T) <= sizeof word, "fold takes values of at most 8 bytes");
    std::memcpy(&word, &value, sizeof value);
    h ^= word + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h;
}

}  // namespace

CallbackFootprint HeatmapRenderer::footprint(const ImDrawCmd& cmd, int fb_h) {
    const auto* entry = static_cast<const QueuedHeatmap*>(cmd.UserCallbackData);
    const HeatmapDraw& d = entry->second;
    const MatrixTexture& t = *d.texture;
    uint64_t h = 0;
    // The texture's key names its content; the ids, size and region say where and how it is read.
    for (const uint64_t part : {t.key, uint64_t(t.values), uint64_t(t.mask), uint64_t(t.rows), uint64_t(t.cols),
                                uint64_t(t.levels), uint64_t(t.reduction)})
        h = fold(h, part);
    for (const float f : {t.cells.x, t.cells.y, t.cells.z, t.cells.w, d.vmax, d.decades, d.top_left.x, d.top_left.y,
                          d.bottom_right.x, d.bottom_right.y, d.clip.x, d.clip.y, d.clip.z, d.clip.w})
        h = fold(h, f);
    for (const int i : {int(d.colormap), int(d.mode), int(d.show_mask), int(d.causal), int(d.tint),
                        int(entry->first->m_reduce_cells)})
        h = fold(h, i);
    return {h, clip_box(d, fb_h)};
}

void HeatmapRenderer::callback(const ImDrawList*, const ImDrawCmd* cmd) {
    const auto* entry = static_cast<const QueuedHeatmap*>(cmd->UserCallbackData);
    entry->first->render(entry->second, scissor_box_of(cmd->ClipRect, framebuffer_height()));
}

void HeatmapRenderer::render(const HeatmapDraw& d, const PixelBox& allowed) const {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
    const int fb_h = framebuffer_height();
    auto ndc_x = [&](float x) { return (x - vp->Pos.x) / vp->Size.x * 2.0f - 1.0f; };
    auto ndc_y = [&](float y) { return 1.0f - (y - vp->Pos.y) / vp->Size.y * 2.0f; };
    const PixelBox box = intersect(clip_box(d, fb_h), allowed);
    if (box.empty()) return;
    glEnable(GL_SCISSOR_TEST);
    glScissor(box.x0, fb_h - box.y1, box.x1 - box.x0, box.y1 - box.y0);
    glDisable(GL_BLEND);
    glUseProgram(m_program);
    glBindVertexArray(m_vao);
    // Dear ImGui's OpenGL backend (1.92+) binds a linear sampler object to unit 0, which overrides a texture's own
    // GL_NEAREST: cells would be smeared into each other when magnified. Unbind it here and restore it after.
    GLint imgui_sampler = 0;
    glActiveTexture(GL_TEXTURE0);
    glGetIntegerv(GL_SAMPLER_BINDING, &imgui_sampler);
    glBindSampler(0, 0);
    glBindTexture(GL_TEXTURE_2D, d.texture->values);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, d.texture->mask ? d.texture->mask : m_dummy_mask);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_1D, m_colormaps[d.colormap == Colormap::Viridis ? 0 : 1]);
    auto loc = [&](const char* name) { return glGetUniformLocation(m_program, name); };
    glUniform1i(loc("u_values"), 0);
    glUniform1i(loc("u_mask"), 1);
    glUniform1i(loc("u_colormap"), 2);
    glUniform4f(loc("u_rect"), ndc_x(d.top_left.x), ndc_y(d.top_left.y), ndc_x(d.bottom_right.x),
                ndc_y(d.bottom_right.y));
    glUniform1i(loc("u_mode"), static_cast<int>(d.mode));
    glUniform1f(loc("u_vmax"), d.vmax);
    glUniform1f(loc("u_decades"), d.decades);
    glUniform1i(loc("u_show_mask"), d.show_mask ? 1 : 0);
    glUniform1i(loc("u_has_mask"), d.texture->mask ? 1 : 0);
    glUniform1i(loc("u_causal"), d.causal ? 1 : 0);
    glUniform4f(loc("u_cells"), d.texture->cells.x, d.texture->cells.y, d.texture->cells.z, d.texture->cells.w);
    glUniform1f(loc("u_mask_alpha"), d.tint ? 0.55f : 0.0f);
    const std::array<GLint, 32> salience = salience_table();
    glUniform1iv(loc("u_reason_salience"), 32, salience.data());
    // Level-0 texels per framebuffer pixel: the footprint each pixel reduces.
    const float quad_w = std::fabs(d.bottom_right.x - d.top_left.x) * scale.x;
    const float quad_h = std::fabs(d.bottom_right.y - d.top_left.y) * scale.y;
    glUniform2f(loc("u_texels_per_pixel"), float(d.texture->cols) / std::max(quad_w, 1e-3f),
                float(d.texture->rows) / std::max(quad_h, 1e-3f));
    glUniform1i(loc("u_reduce"), m_reduce_cells ? 1 : 0);
    glUniform1i(loc("u_signed"), d.texture->reduction == CellReduction::SignedMaxAbs ? 1 : 0);
    glUniform1i(loc("u_levels"), d.texture->levels);
    static_assert(static_cast<int>(Reason::Count) <= 32, "shaders/heatmap.frag holds 32 reason colours");
    float colors[32 * 3] = {};
    for (int r = 0; r < static_cast<int>(Reason::Count); ++r) {
        const ImVec4 c = reason_color(static_cast<Reason>(r));
        colors[3 * r] = c.x, colors[3 * r + 1] = c.y, colors[3 * r + 2] = c.z;
    }
    glUniform3fv(loc("u_reason_colors"), 32, colors);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBindTexture(GL_TEXTURE_1D, 0);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, 0);
    glActiveTexture(GL_TEXTURE0);
    glBindSampler(0, GLuint(imgui_sampler));
    glEnable(GL_BLEND);
}

}  // namespace attnscope::gui
