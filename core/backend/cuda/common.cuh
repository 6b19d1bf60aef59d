// attnscope — what every CUDA primitive family shares: error checks, the tracked device allocator, the
// per-backend context (stream + cuBLAS handle), host↔device copies and a memory estimate before launch.
// Included by core/backend/cuda/*.cu only (it pulls in the CUDA runtime and cuBLAS headers). Device-side helpers
// (warp reductions) live in device_util.cuh.
//
// Index
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/backend/cuda/cuda_primitives.h"
#include "core/backend/interface/resident_inputs.h"

namespace attnscope::cuda {

/// Throws Error "<what> failed at <file>:<line>: <cuda message>" when `status` is not cudaSuccess.
void throw_on_cuda_error(cudaError_t status, const char* what, const char* file, int line);
/// Same for a cuBLAS status.
void throw_on_cublas_error(cublasStatus_t status, const char* what, const char* file, int line);

/// Every CUDA runtime call goes through this: a failure becomes attnscope::Error, never a crash.
#define ATTNSCOPE_CUDA_CHECK(call) ::attnscope::cuda::throw_on_cuda_error((call), #call, __FILE__, __LINE__)
/// Every cuBLAS call goes through this.
#define ATTNSCOPE_CUBLAS_CHECK(call) ::attnscope::cuda::throw_on_cublas_error((call), #call, __FILE__, __LINE__)

/// Checks the launch that just happened (bad configuration, missing kernel image for this GPU).
void check_launch(const char* kernel_name, const char* file, int line);
#define ATTNSCOPE_CHECK_LAUNCH(name) ::attnscope::cuda::check_launch(name, __FILE__, __LINE__)

/// Bytes held by DeviceBuffers of this process (device memory, apart from the host counters of memory.h).
struct DeviceMemoryCounters {
    std::atomic<int64_t> live{0};  // bytes currently allocated on the device
    std::atomic<int64_t> peak{0};  // high-water mark of `live`
};
/// The one counter set every DeviceBuffer reports to.
DeviceMemoryCounters& device_memory_counters();

/// Allocates `bytes` of device memory, tracked, from this thread's block cache or the driver; throws Error naming
/// the size and "use --backend cpu" when the device is out of memory. Returns nullptr for 0 bytes.
void* device_alloc(size_t bytes, const char* what);
/// Gives memory from device_alloc back to this thread's block cache (nullptr is fine); never throws.
void device_free(void* p, size_t bytes) noexcept;
/// Bytes in this thread's block cache: free device memory to this thread's next requests.
size_t device_bytes_cached();

/// Owning, move-only device array of `count` T; the only way core/backend/cuda/ allocates device memory.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    /// Allocates `count` elements (uninitialised); `what` names the buffer in an out-of-memory message.
    DeviceBuffer(size_t count, const char* what)
        : m_data(static_cast<T*>(device_alloc(count * sizeof(T), what))), m_count(count) {}
    ~DeviceBuffer() { device_free(m_data, m_count * sizeof(T)); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept : m_data(other.m_data), m_count(other.m_count) {
        other.m_data = nullptr, other.m_count = 0;
    }
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            device_free(m_data, m_count * sizeof(T));
            m_data = other.m_data, m_count = other.m_count;
            other.m_data = nullptr, other.m_count = 0;
        }
        return *this;
    }
    T* get() const { return m_data; }
    size_t size() const { return m_count; }
    size_t bytes() const { return m_count * sizeof(T); }

private:
    T* m_data = nullptr;
    size_t m_count = 0;
};

/// Checks before any allocation that `bytes` fit in the device's free memory (with a small reserve);
/// throws Error "<what> needs X MiB of device memory but only Y MiB are free: use --backend cpu" otherwise.
void require_device_memory(size_t bytes, const std::string& what);

/// One CUDA stream and one cuBLAS handle bound to it; every primitive of a backend runs on this stream.
class Context {
public:
    /// Creates the stream and handle on the current device (throws Error on failure).
    Context();
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    cudaStream_t stream() const { return m_stream; }
    cublasHandle_t cublas() const { return m_cublas; }
    /// Waits for all work on the stream and turns an asynchronous kernel fault into Error.
    void synchronize(const char* after_what) const;

    /// Starts bracketing every host↔device copy on the stream with an event pair (a timed primitive call).
    void start_copy_clock();
    /// Stops bracketing; after the stream has been waited for, returns the device ms and bytes of the copies
    /// bracketed since start_copy_clock().
    std::pair<double, int64_t> stop_copy_clock();
    /// Enqueues a host↔device copy of `bytes` on the stream, bracketed by an event pair while the copy clock runs.
    void copy_async(void* to, const void* from, size_t bytes, cudaMemcpyKind kind) const;

    /// Copies host bytes [host, host + bytes) to the device and keeps them there until forget_resident() (nothing
    /// new when they are kept already); upload_input of a range inside them then copies nothing. The caller
    /// promises the host bytes stay as they are meanwhile.
    void keep_resident(const void* host, size_t bytes);
    /// Frees every kept copy.
    void forget_resident();
    /// The device copy of host floats [host, host + count) when they lie inside a kept range, else nullptr.
    const float* resident(const float* host, size_t count) const {
        return static_cast<const float*>(m_resident.find(host, count * sizeof(float)));
    }

private:
    cudaStream_t m_stream = nullptr;
    cublasHandle_t m_cublas = nullptr;
    // The copy clock: events are reused across calls; `m_used` pairs hold this call's copies.
    mutable std::vector<std::pair<cudaEvent_t, cudaEvent_t>> m_copy_events;
    mutable size_t m_used = 0;
    mutable int64_t m_copy_bytes = 0;
    bool m_copy_clock = false;
    ResidentInputs<DeviceBuffer<unsigned char>> m_resident;  // host ranges kept on the device (keep_resident)
};

/// Copies `count` floats from host to a new device buffer (stream-ordered, then usable by kernels).
DeviceBuffer<float> upload(const Context& ctx, const float* host, size_t count, const char* what);

/// A read-only input on the device: the context's kept copy when its host range is resident, else its own upload.
class DeviceInput {
public:
    DeviceInput() = default;
    /// Borrows a kept copy (nothing to free).
    explicit DeviceInput(const float* kept) : m_ptr(kept) {}
    /// Owns an upload.
    explicit DeviceInput(DeviceBuffer<float> upload) : m_upload(std::move(upload)), m_ptr(m_upload.get()) {}
    /// The input's first float on the device; kernels read it and never write it.
    const float* get() const { return m_ptr; }

private:
    DeviceBuffer<float> m_upload;
    const float* m_ptr = nullptr;
};
/// `count` host floats a primitive only reads, on the device: served from a kept copy (Context::keep_resident)
/// without a copy when they lie inside one, else uploaded like upload().
DeviceInput upload_input(const Context& ctx, const float* host, size_t count, const char* what);
/// Copies `bytes` from host to device memory on the context's stream (stream-ordered).
void copy_to_device(const Context& ctx, void* device, const void* host, size_t bytes);
/// Copies `count` elements of any trivially copyable T to a new device buffer (layout indices, bitmasks).
template <class T>
DeviceBuffer<T> upload_array(const Context& ctx, const T* host, size_t count, const char* what) {
    DeviceBuffer<T> buffer(count, what);
    if (count) copy_to_device(ctx, buffer.get(), host, count * sizeof(T));
    return buffer;
}
/// Copies `bytes` from device to host memory and waits for them.
void copy_to_host(const Context& ctx, void* host, const void* device, size_t bytes);
/// Copies `count` floats from device to host and waits for them.
void download(const Context& ctx, const float* device, float* host, size_t count);

/// ⌈a / b⌉ for positive b.
__host__ __device__ constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Lets `kernel` launch with smem_bytes of dynamic shared memory (above 48 KiB a kernel must opt in; sm_80+
/// allow 99–227 KiB); throws Error "<what> needs N bytes of shared memory per block but this GPU allows M:
/// <remedy>" when the device allows less.
void allow_dynamic_smem(const void* kernel, int smem_bytes, const std::string& what, const char* remedy);
/// The same for a kernel taking one parameter struct (every tiled attention kernel).
template <class Params>
void allow_dynamic_smem(void (*kernel)(Params), int smem_bytes, const std::string& what, const char* remedy) {
    allow_dynamic_smem(reinterpret_cast<const void*>(kernel), smem_bytes, what, remedy);
}

}  // namespace attnscope::cuda
