// attnscope — the GUI's interop when the CUDA backend is not built: there is no device memory to read from.
#include "app/gui/gl_interop.h"
#include "core/error.h"

namespace attnscope::gui {

namespace {

class NoGlInterop final : public GlInterop {
public:
    std::string direct_unavailable_reason() const override {
        return "this build has no CUDA backend (configure with -DATTNSCOPE_CUDA=ON where nvcc exists)";
    }
    void write_texture(unsigned, const float*, int, int) override {
        throw Error("a device matrix reached the heatmap in a build without CUDA: upload it from the host instead");
    }
    void forget(unsigned) override {}
};

}  // namespace

std::unique_ptr<GlInterop> make_gl_interop() { return std::make_unique<NoGlInterop>(); }

}  // namespace attnscope::gui
