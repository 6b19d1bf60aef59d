#include "core/bench/memory_guard.h"

#include "core/format.h"
#include "core/host_memory.h"

namespace attnscope {

std::string device_memory_shortfall(int64_t need, Backend& backend, const std::string& what) {
    if (!backend.has_device() || need <= 0) return "";
    const int64_t free_bytes = backend.device_free_bytes();
    if (free_bytes < 0 || need <= free_bytes) return "";
    return what + " needs an estimated " + format_bytes(need) + " of device memory but only " + format_bytes(free_bytes) +
           " are free on the GPU: run it on the CPU (--backend cpu) or lower n or the number of heads";
}

int64_t device_estimate_bytes(const Variant& variant, int heads, int n, int d, int dv, const Params& resolved) {
    const int64_t estimate = variant.estimate_peak_bytes(heads, n, d, dv, resolved);
    if (estimate == variant.Variant::estimate_peak_bytes(heads, n, d, dv, resolved)) return -1;
    return estimate + int64_t(sizeof(float)) * heads * n * (2ll * d + dv);  // + Q, K, V on the device
}

void require_device_fit(const Variant& variant, const Heads& h, const Params& resolved, Backend& backend) {
    if (!backend.has_device()) return;
    const int64_t need = device_estimate_bytes(variant, h.heads(), h.n(), h.d(), h.dv(), resolved);
    const std::string why =
        device_memory_shortfall(need, backend, variant.info().id + " at n = " + std::to_string(h.n()) + ", H = " +
                                                   std::to_string(h.heads()));
    if (!why.empty()) throw DeviceMemoryError(why);
}

int64_t host_estimate_bytes(const Variant& variant, const Heads& h, const Params& resolved, bool explain_matrices) {
    int64_t bytes = variant.estimate_peak_bytes(h.heads(), h.n(), h.d(), h.dv(), resolved);
    if (explain_matrices) bytes += int64_t(h.heads()) * h.n() * h.n() * int64_t(sizeof(float) + 1);  // P̃ + reasons
    return bytes;
}

void require_fit(const Variant& variant, const Heads& h, const Params& resolved, const RunOptions& options,
                 Backend& backend) {
    if (backend.has_device()) return require_device_fit(variant, h, resolved, backend);
    const bool matrices = options.explain && h.n() <= options.max_matrix_n;
    require_host_memory(host_estimate_bytes(variant, h, resolved, matrices),
                        variant.info().id + " at n = " + std::to_string(h.n()) + ", H = " + std::to_string(h.heads()),
                        "lower n or the number of heads, or choose a variant with less memory (flash is exact in O(n))");
}

}  // namespace attnscope
