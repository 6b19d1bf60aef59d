// attnscope — CUDA–OpenGL interop for the heatmaps: a matrix that lives in device memory is written straight
// into its OpenGL texture (cudaGraphicsGLRegisterImage + a device-to-array copy), without a round trip through
// the host. The implementation is chosen by CMake: app/interop/gl_interop_cuda.cpp when the CUDA backend is
// built with the GUI, app/interop/gl_interop_none.cpp otherwise (no #ifdef here).
#pragma once
#include <memory>
#include <string>

namespace attnscope::gui {

/// Writes device-resident float matrices into R32F textures. One per GL context (the GUI thread's).
class GlInterop {
public:
    virtual ~GlInterop() = default;
    /// "" when textures can be written from device memory directly, else why not (no CUDA in this build, no
    /// device, or the GL context runs on a GPU CUDA cannot share with); write_texture then stages via the host.
    virtual std::string direct_unavailable_reason() const = 0;
    /// Copies `rows`×`cols` row-major floats at device address `device` into the R32F texture `texture` (already
    /// allocated with that size): directly when possible, through a host staging buffer otherwise. Throws Error.
    virtual void write_texture(unsigned texture, const float* device, int rows, int cols) = 0;
    /// Drops the CUDA registration of `texture` (call before deleting the texture); a no-op when not registered.
    virtual void forget(unsigned texture) = 0;
};

/// The build's interop; never null (without CUDA it reports why and accepts no device pointers).
std::unique_ptr<GlInterop> make_gl_interop();

}  // namespace attnscope::gui
