// attnscope — the desktop GUI: window, Dear ImGui (docking) + ImPlot, and the first heatmap.
// Index: [SECTION] Window  [SECTION] Heatmap texture  [SECTION] Frame  [SECTION] Screenshot  [SECTION] Main loop
#include "gui_app.h"

#include <epoxy/gl.h>
// GLFW after the GL loader so it does not pull in the system GL header first.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <imgui_internal.h>  // DockBuilder: the default layout on first start
#include <implot.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/analysis/colormap.h"
#include "core/backend/registry.h"
#include "core/data/scenarios.h"
#include "core/session/experiment.h"
#include "core/session/export.h"

namespace attnscope::gui {

namespace {

// [SECTION] Window

void glfw_error(int code, const char* message) { fprintf(stderr, "glfw error %d: %s\n", code, message); }

GLFWwindow* open_window(const GuiOptions& o) {
    glfwSetErrorCallback(glfw_error);
    if (!glfwInit())
        throw Error("cannot open a window: no display found (set DISPLAY, or run under `xvfb-run -a attnscope gui`)");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    if (!o.screenshot_path.empty()) glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
    GLFWwindow* window = glfwCreateWindow(o.width, o.height, "attnscope", nullptr, nullptr);
    if (!window) {
        glfwTerminate();
        throw Error("cannot create an OpenGL 3.3 window: update the graphics driver or run under Mesa (llvmpipe)");
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(o.screenshot_path.empty() ? 1 : 0);
    return window;
}

// [SECTION] Heatmap texture

/// An RGBA texture of a colormapped matrix.
struct HeatmapTexture {
    GLuint id = 0;
    int width = 0, height = 0;
    void upload(const Tensor3& M, int h) {
        width = M.cols(), height = M.rows();
        float hi = M.head(h).maxCoeff();
        const float top = std::log10(std::max(hi, 1e-30f));
        std::vector<unsigned char> rgba(static_cast<size_t>(width) * height * 4);
        for (int i = 0; i < height; ++i)
            for (int j = 0; j < width; ++j) {
                const float v = M.at(h, i, j);
                const float t = v > 0 ? std::clamp((std::log10(v) - (top - 4.0f)) / 4.0f, 0.0f, 1.0f) : 0.0f;
                const auto c = colormap_rgb(Colormap::Viridis, t);
                unsigned char* px = rgba.data() + (static_cast<size_t>(i) * width + j) * 4;
                px[0] = c[0], px[1] = c[1], px[2] = c[2], px[3] = 255;
            }
        if (!id) glGenTextures(1, &id);
        glBindTexture(GL_TEXTURE_2D, id);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    }
    ~HeatmapTexture() {
        if (id) glDeleteTextures(1, &id);
    }
};

// [SECTION] Frame

struct AppState {
    Heads heads;
    RunResult full;
    HeatmapTexture texture;
    bool show_demo = false;
};

/// Splits the dock space into Input (left), the matrix (centre) and Debug (bottom) on first start.
void build_default_layout(ImGuiID dockspace) {
    ImGui::DockBuilderRemoveNode(dockspace);
    ImGui::DockBuilderAddNode(dockspace, ImGuiDockNodeFlags_DockSpace);
    ImGui::DockBuilderSetNodeSize(dockspace, ImGui::GetMainViewport()->Size);
    ImGuiID centre = dockspace;
    const ImGuiID left = ImGui::DockBuilderSplitNode(centre, ImGuiDir_Left, 0.22f, nullptr, &centre);
    const ImGuiID bottom = ImGui::DockBuilderSplitNode(centre, ImGuiDir_Down, 0.18f, nullptr, &centre);
    ImGui::DockBuilderDockWindow("Input", left);
    ImGui::DockBuilderDockWindow("full", centre);
    ImGui::DockBuilderDockWindow("Debug", bottom);
    ImGui::DockBuilderFinish(dockspace);
}

void draw_frame(AppState& s) {
    const ImGuiID dockspace = ImGui::GetID("attnscope-dockspace");
    if (!ImGui::DockBuilderGetNode(dockspace) || ImGui::DockBuilderGetNode(dockspace)->IsLeafNode()) build_default_layout(dockspace);
    ImGui::DockSpaceOverViewport(dockspace, ImGui::GetMainViewport());
    ImGui::Begin("Input");
    ImGui::Text("%s: n = %d, H = %d, d = %d", s.heads.source.c_str(), s.heads.n(), s.heads.heads(), s.heads.d());
    ImGui::End();

    ImGui::Begin("full");
    ImGui::Text("Full softmax attention, head 0 (log colour scale, 4 decades)");
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float side = std::max(64.0f, std::min(avail.x, avail.y));
    ImGui::Image(static_cast<ImTextureID>(s.texture.id), ImVec2(side, side));
    ImGui::End();

    ImGui::Begin("Debug");
    ImGui::Text("%.1f ms/frame (%.0f FPS)", 1000.0f / ImGui::GetIO().Framerate, ImGui::GetIO().Framerate);
    ImGui::Checkbox("ImGui + ImPlot demos", &s.show_demo);
    ImGui::End();
    if (s.show_demo) {
        ImGui::ShowDemoWindow(&s.show_demo);
        ImPlot::ShowDemoWindow(&s.show_demo);
    }
}

// [SECTION] Screenshot

void save_screenshot(GLFWwindow* window, const std::string& path) {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window, &w, &h);
    std::vector<unsigned char> rgb(static_cast<size_t>(w) * h * 3), flipped(rgb.size());
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, rgb.data());
    for (int y = 0; y < h; ++y)
        std::copy_n(rgb.data() + static_cast<size_t>(h - 1 - y) * w * 3, w * 3, flipped.data() + static_cast<size_t>(y) * w * 3);
    write_rgb_png(path, w, h, flipped.data());
}

}  // namespace

// [SECTION] Main loop

int run_gui(const GuiOptions& o) {
    GLFWwindow* window = open_window(o);
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImPlot::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.ConfigFlags |= ImGuiConfigFlags_DockingEnable;
    io.IniFilename = nullptr;
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");

    {
        AppState state;
        ScenarioSpec spec;
        spec.kind = ScenarioKind::Local;
        spec.n = 128;
        state.heads = make_scenario(spec);
        auto backend = make_backend("auto");
        RunOptions options;
        options.want_matrix = true;
        state.full = run_variant(state.heads, parse_variant_request("full", {}), options, *backend, nullptr);
        state.texture.upload(*state.full.P_eff, 0);

        for (int frame = 0; !glfwWindowShouldClose(window); ++frame) {
            glfwPollEvents();
            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplGlfw_NewFrame();
            ImGui::NewFrame();
            draw_frame(state);
            ImGui::Render();
            int w = 0, h = 0;
            glfwGetFramebufferSize(window, &w, &h);
            glViewport(0, 0, w, h);
            glClearColor(0.1f, 0.1f, 0.12f, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
            ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
            if (!o.screenshot_path.empty() && frame + 1 >= o.frames) {
                save_screenshot(window, o.screenshot_path);
                break;
            }
            glfwSwapBuffers(window);
        }
    }
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImPlot::DestroyContext();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return 0;
}

}  // namespace attnscope::gui
