// attnscope — heatmap textures and the shader callback.
#include "gl_heatmap.h"

#include <string>

#include "attnscope_shaders.h"
#include "core/error.h"

namespace attnscope::gui {

ImVec4 reason_color(Reason r) {
    const auto c = reason_rgb(r);
    return {c[0], c[1], c[2], 1};
}

void MatrixTexture::upload(const float* data, int r, int c, const uint8_t* mask_cells, ImVec4 region,
                           uint64_t new_key) {
    // glTexImage2D gives the texture new storage: a CUDA registration of the old one must go first.
    if (interop && values) interop->forget(values);
    rows = r, cols = c, cells = region;
    auto params = [] {
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    };
    if (!values) glGenTextures(1, &values);
    glBindTexture(GL_TEXTURE_2D, values);
    params();
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, cols, rows, 0, GL_RED, GL_FLOAT, data);
    if (mask_cells) {
        if (!mask) glGenTextures(1, &mask);
        glBindTexture(GL_TEXTURE_2D, mask);
        params();
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R8UI, cols, rows, 0, GL_RED_INTEGER, GL_UNSIGNED_BYTE, mask_cells);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    } else if (mask) {
        glDeleteTextures(1, &mask);
        mask = 0;
    }
    glBindTexture(GL_TEXTURE_2D, 0);
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

void MatrixTexture::upload_device(GlInterop& link, const float* device, int r, int c, const uint8_t* mask_cells,
                                  ImVec4 region, uint64_t new_key) {
    // Storage (and the mask) exactly as for a host upload, with no texel data; then the device copy fills it.
    upload(nullptr, r, c, mask_cells, region, 0);
    interop = &link;
    link.write_texture(values, device, r, c);
    key = new_key;
}

namespace {

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

}  // namespace

void HeatmapRenderer::init() {
    const GLuint vs = compile(GL_VERTEX_SHADER, shaders::kHeatmapVert, "heatmap.vert");
    const GLuint fs = compile(GL_FRAGMENT_SHADER, shaders::kHeatmapFrag, "heatmap.frag");
    m_program = glCreateProgram();
    glAttachShader(m_program, vs);
    glAttachShader(m_program, fs);
    glLinkProgram(m_program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(m_program, GL_LINK_STATUS, &ok);
    if (!ok) throw Error("the graphics driver could not link the heatmap shader (OpenGL 3.3 required)");
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
}

void HeatmapRenderer::draw(ImDrawList* list, const HeatmapDraw& d) {
    if (!d.texture || !d.texture->values || !m_program) return;
    m_draws.emplace_back(this, d);
    list->AddCallback(&HeatmapRenderer::callback, &m_draws.back());
    list->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

void HeatmapRenderer::callback(const ImDrawList*, const ImDrawCmd* cmd) {
    const auto* entry = static_cast<const std::pair<const HeatmapRenderer*, HeatmapDraw>*>(cmd->UserCallbackData);
    entry->first->render(entry->second);
}

void HeatmapRenderer::render(const HeatmapDraw& d) const {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
    const float fb_h = vp->Size.y * scale.y;
    auto ndc_x = [&](float x) { return (x - vp->Pos.x) / vp->Size.x * 2.0f - 1.0f; };
    auto ndc_y = [&](float y) { return 1.0f - (y - vp->Pos.y) / vp->Size.y * 2.0f; };
    const float cx0 = (d.clip.x - vp->Pos.x) * scale.x, cy0 = (d.clip.y - vp->Pos.y) * scale.y;
    const float cx1 = (d.clip.z - vp->Pos.x) * scale.x, cy1 = (d.clip.w - vp->Pos.y) * scale.y;
    if (cx1 <= cx0 || cy1 <= cy0) return;
    glEnable(GL_SCISSOR_TEST);
    glScissor(int(cx0), int(fb_h - cy1), int(cx1 - cx0), int(cy1 - cy0));
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
