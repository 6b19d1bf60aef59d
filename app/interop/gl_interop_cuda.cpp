// attnscope — CUDA–OpenGL interop (built when both the CUDA backend and the GUI are): each texture is registered
// once with cudaGraphicsGLRegisterImage (write-discard), mapped for the copy, and written by
// cudaMemcpy2DToArray from device memory. When the GL context is not on a CUDA device (e.g. a laptop drawing
// on its integrated GPU) or registration fails, the matrix is staged through the host and uploaded by
// glTexSubImage2D, so the heatmap still appears.
// epoxy first: it defines the GL types and guards <GL/gl.h>, which cuda_gl_interop.h includes.
#include <epoxy/gl.h>

#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#include <map>
#include <vector>

#include "app/gui/gl_interop.h"
#include "core/backend/factory/make_backend.h"
#include "core/error.h"

namespace attnscope::gui {

namespace {

void check(cudaError_t status, const char* what) {
    if (status == cudaSuccess) return;
    (void)cudaGetLastError();
    throw Error(std::string("CUDA–OpenGL interop: ") + what + " failed: " + cudaGetErrorString(status) +
                "; the heatmap falls back to host uploads if this persists (or use --backend cpu)");
}

class CudaGlInterop final : public GlInterop {
public:
    CudaGlInterop() {
        m_reason = cuda_unavailable_reason();
        if (!m_reason.empty()) return;
        unsigned int count = 0;
        int devices[4] = {};
        const cudaError_t status = cudaGLGetDevices(&count, devices, 4, cudaGLDeviceListAll);
        if (status != cudaSuccess || count == 0) {
            (void)cudaGetLastError();
            m_reason = "the OpenGL context is not on a CUDA device (cudaGLGetDevices found none)";
        }
    }
    ~CudaGlInterop() override {
        for (auto& entry : m_resources) (void)cudaGraphicsUnregisterResource(entry.second);
    }
    std::string direct_unavailable_reason() const override { return m_reason; }

    void write_texture(unsigned texture, const float* device, int rows, int cols) override {
        if (rows <= 0 || cols <= 0) return;
        const size_t row_bytes = size_t(cols) * sizeof(float);
        if (m_reason.empty()) {
            try {
                cudaGraphicsResource* resource = registered(texture);
                check(cudaGraphicsMapResources(1, &resource, nullptr), "cudaGraphicsMapResources");
                cudaArray_t array = nullptr;
                const cudaError_t got = cudaGraphicsSubResourceGetMappedArray(&array, resource, 0, 0);
                const cudaError_t copied =
                    got == cudaSuccess ? cudaMemcpy2DToArray(array, 0, 0, device, row_bytes, row_bytes, size_t(rows),
                                                             cudaMemcpyDeviceToDevice)
                                       : got;
                check(cudaGraphicsUnmapResources(1, &resource, nullptr), "cudaGraphicsUnmapResources");
                check(copied, "copying the matrix into the texture");
                return;
            } catch (const Error&) {
                // Registration of this context's textures is refused: stage through the host from now on.
                m_reason = "CUDA could not register the OpenGL texture; heatmaps are staged through the host";
            }
        }
        std::vector<float> host(size_t(rows) * cols);
        check(cudaMemcpy(host.data(), device, host.size() * sizeof(float), cudaMemcpyDeviceToHost),
              "copying the matrix to the host");
        glBindTexture(GL_TEXTURE_2D, texture);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, cols, rows, GL_RED, GL_FLOAT, host.data());
        glBindTexture(GL_TEXTURE_2D, 0);
    }

    void forget(unsigned texture) override {
        const auto it = m_resources.find(texture);
        if (it == m_resources.end()) return;
        (void)cudaGraphicsUnregisterResource(it->second);
        m_resources.erase(it);
    }

private:
    /// The CUDA handle of `texture`, registered on first use (write-discard: the copy replaces every texel).
    cudaGraphicsResource* registered(unsigned texture) {
        const auto it = m_resources.find(texture);
        if (it != m_resources.end()) return it->second;
        cudaGraphicsResource* resource = nullptr;
        check(cudaGraphicsGLRegisterImage(&resource, texture, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsWriteDiscard),
              "cudaGraphicsGLRegisterImage");
        m_resources.emplace(texture, resource);
        return resource;
    }

    std::string m_reason;
    std::map<unsigned, cudaGraphicsResource*> m_resources;
};

}  // namespace

std::unique_ptr<GlInterop> make_gl_interop() { return std::make_unique<CudaGlInterop>(); }

}  // namespace attnscope::gui
