// attnscope — shared CUDA machinery: checks, tracked device memory, the context, copies, device probe.
#include <cstdio>
#include <mutex>

#include "core/backend/cuda/common.cuh"
#include "core/backend/interface/block_pool.h"

namespace attnscope::cuda {

namespace {

std::string mib(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1024.0 * 1024.0));
    return text;
}

const char* cublas_status_name(cublasStatus_t status) {
    switch (status) {
        case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
        case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED (is a driver installed?)";
        case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED (device out of memory)";
        case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
        case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
        case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
        case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
        case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
        case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
        default: return "unknown cuBLAS status";
    }
}

}  // namespace

void throw_on_cuda_error(cudaError_t status, const char* what, const char* file, int line) {
    if (status == cudaSuccess) return;
    (void)cudaGetLastError();  // clear a non-sticky error so the next call starts clean
    throw Error(std::string("CUDA call ") + what + " failed at " + file + ":" + std::to_string(line) + ": " +
                cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
                "); retry with --backend cpu if the GPU is unusable");
}

void throw_on_cublas_error(cublasStatus_t status, const char* what, const char* file, int line) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    throw Error(std::string("cuBLAS call ") + what + " failed at " + file + ":" + std::to_string(line) + ": " +
                cublas_status_name(status) + "; retry with --backend cpu if the GPU is unusable");
}

void check_launch(const char* kernel_name, const char* file, int line) {
    const cudaError_t status = cudaGetLastError();
    if (status == cudaSuccess) return;
    throw Error(std::string("launching CUDA kernel ") + kernel_name + " failed at " + file + ":" +
                std::to_string(line) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
                "); a 'no kernel image' error means this GPU's architecture is not in ATTNSCOPE_CUDA_ARCHS");
}

DeviceMemoryCounters& device_memory_counters() {
    static DeviceMemoryCounters counters;
    return counters;
}

namespace {

/// This thread's cache of device blocks (core/backend/interface/block_pool.h). A primitive runs on one thread and
/// one stream and waits for that stream before it returns, so a block given back here is reused only by work
/// ordered after its last use on that stream, or started after that wait. It keeps at most a quarter of the
/// device's memory; a block given back beyond that is freed.
BlockPool& thread_block_pool() {
    thread_local BlockPool pool(
        [](size_t bytes) -> void* {
            void* p = nullptr;
            const cudaError_t status = cudaMalloc(&p, bytes);
            if (status == cudaErrorMemoryAllocation) {
                (void)cudaGetLastError();
                return nullptr;
            }
            throw_on_cuda_error(status, "cudaMalloc", __FILE__, __LINE__);
            return p;
        },
        [](void* p) { (void)cudaFree(p); },  // a failure means the context is broken; the next checked call says so
        [] {
            size_t free_bytes = 0, total_bytes = 0;
            if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
                (void)cudaGetLastError();
                return size_t(0);  // nothing cached: every block freed at once, as without a pool
            }
            return total_bytes / 4;
        }());
    return pool;
}

}  // namespace

void* device_alloc(size_t bytes, const char* what) {
    if (bytes == 0) return nullptr;
    void* p = thread_block_pool().acquire(bytes);
    if (!p)
        throw DeviceMemoryError(std::string("the GPU is out of memory: allocating ") + mib(double(bytes)) + " for " + what +
                                " failed (" + mib(double(device_memory_counters().live.load())) +
                                " already held by attnscope); use --backend cpu or a smaller n");
    DeviceMemoryCounters& c = device_memory_counters();
    const int64_t now = c.live.fetch_add(int64_t(bytes)) + int64_t(bytes);
    int64_t peak = c.peak.load();
    while (now > peak && !c.peak.compare_exchange_weak(peak, now)) {
    }
    return p;
}

void device_free(void* p, size_t bytes) noexcept {
    if (!p) return;
    try {
        thread_block_pool().give_back(p, bytes);
    } catch (...) {  // the cache could not grow (host memory): free the block instead
        (void)cudaFree(p);
    }
    device_memory_counters().live.fetch_sub(int64_t(bytes));
}

size_t device_bytes_cached() { return thread_block_pool().cached_bytes(); }

void require_device_memory(size_t bytes, const std::string& what) {
    size_t free_bytes = 0, total_bytes = 0;
    ATTNSCOPE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    free_bytes += device_bytes_cached();  // this thread's cached blocks are freed when a request needs them
    // Keep a reserve for cuBLAS workspaces and the allocator's granularity.
    constexpr size_t kReserve = size_t(64) << 20;
    if (bytes + kReserve > free_bytes)
        throw DeviceMemoryError(what + " needs " + mib(double(bytes)) + " of device memory but only " + mib(double(free_bytes)) +
                    " of " + mib(double(total_bytes)) + " are free: use --backend cpu or a smaller n");
}

int64_t device_bytes_live() { return device_memory_counters().live.load(); }
int64_t device_bytes_peak() { return device_memory_counters().peak.load(); }
void reset_device_peak() { device_memory_counters().peak.store(device_memory_counters().live.load()); }

Context::Context() {
    try {
        ATTNSCOPE_CUDA_CHECK(cudaSetDevice(0));
        ATTNSCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
        ATTNSCOPE_CUBLAS_CHECK(cublasCreate(&m_cublas));
        ATTNSCOPE_CUBLAS_CHECK(cublasSetStream(m_cublas, m_stream));
        // Default math keeps fp32 mantissas for Sgemm (TF32 only under CUBLAS_TF32_TENSOR_OP_MATH), so results
        // match the CPU backend to fp32 rounding.
        ATTNSCOPE_CUBLAS_CHECK(cublasSetMathMode(m_cublas, CUBLAS_DEFAULT_MATH));
    } catch (...) {
        if (m_cublas) (void)cublasDestroy(m_cublas);
        if (m_stream) (void)cudaStreamDestroy(m_stream);
        throw;
    }
}

Context::~Context() {
    for (const auto& [start, stop] : m_copy_events) (void)cudaEventDestroy(start), (void)cudaEventDestroy(stop);
    if (m_cublas) (void)cublasDestroy(m_cublas);
    if (m_stream) (void)cudaStreamDestroy(m_stream);
}

void Context::start_copy_clock() {
    m_copy_clock = true;
    m_used = 0;
    m_copy_bytes = 0;
}

std::pair<double, int64_t> Context::stop_copy_clock() {
    m_copy_clock = false;
    double ms = 0;
    for (size_t k = 0; k < m_used; ++k) {
        float pair_ms = 0;
        ATTNSCOPE_CUDA_CHECK(cudaEventElapsedTime(&pair_ms, m_copy_events[k].first, m_copy_events[k].second));
        ms += double(pair_ms);
    }
    m_used = 0;
    return {ms, m_copy_bytes};
}

void Context::copy_async(void* to, const void* from, size_t bytes, cudaMemcpyKind kind) const {
    if (!bytes) return;
    if (!m_copy_clock) {
        ATTNSCOPE_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, kind, m_stream));
        return;
    }
    if (m_used == m_copy_events.size()) {
        std::pair<cudaEvent_t, cudaEvent_t> pair{nullptr, nullptr};
        ATTNSCOPE_CUDA_CHECK(cudaEventCreate(&pair.first));
        if (const cudaError_t status = cudaEventCreate(&pair.second); status != cudaSuccess) {
            (void)cudaEventDestroy(pair.first);
            throw_on_cuda_error(status, "creating a copy event", __FILE__, __LINE__);
        }
        m_copy_events.push_back(pair);
    }
    const auto& [start, stop] = m_copy_events[m_used++];
    ATTNSCOPE_CUDA_CHECK(cudaEventRecord(start, m_stream));
    ATTNSCOPE_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, kind, m_stream));
    ATTNSCOPE_CUDA_CHECK(cudaEventRecord(stop, m_stream));
    m_copy_bytes += int64_t(bytes);
}

void Context::synchronize(const char* after_what) const {
    const cudaError_t status = cudaStreamSynchronize(m_stream);
    if (status != cudaSuccess) throw_on_cuda_error(status, after_what, __FILE__, __LINE__);
}

void ContextDeleter::operator()(Context* ctx) const noexcept { delete ctx; }

ContextPtr make_context() { return ContextPtr(new Context()); }

DeviceBuffer<float> upload(const Context& ctx, const float* host, size_t count, const char* what) {
    DeviceBuffer<float> buffer(count, what);
    ctx.copy_async(buffer.get(), host, count * sizeof(float), cudaMemcpyHostToDevice);
    return buffer;
}

DeviceInput upload_input(const Context& ctx, const float* host, size_t count, const char* what) {
    if (const float* kept = ctx.resident(host, count)) return DeviceInput(kept);
    return DeviceInput(upload(ctx, host, count, what));
}

void Context::keep_resident(const void* host, size_t bytes) {
    if (!bytes || m_resident.contains(host, bytes)) return;
    DeviceBuffer<unsigned char> copy(bytes, "an input kept on the device");
    copy_async(copy.get(), host, bytes, cudaMemcpyHostToDevice);
    synchronize("keeping an input on the device");
    m_resident.add(host, bytes, std::move(copy));
}

void keep_resident(Context& ctx, const void* host, size_t bytes) { ctx.keep_resident(host, bytes); }

void forget_resident(Context& ctx) { ctx.forget_resident(); }

void Context::forget_resident() {
    synchronize("before freeing the inputs kept on the device");  // no kernel may still read them
    m_resident.clear();
}

void copy_to_device(const Context& ctx, void* device, const void* host, size_t bytes) {
    ctx.copy_async(device, host, bytes, cudaMemcpyHostToDevice);
}

namespace {

/// Writes a byte of every page of [host, host + bytes) that the copy will overwrite, so a fresh host buffer's pages
/// exist before the copy starts: the copy clock then times the transfer alone, whether or not the caller filled the
/// buffer first (a zero-filled O and an uninitialised one cost the same copy; the faults are host work, in the wall).
void touch_pages(void* host, size_t bytes) {
    constexpr size_t kPage = 4096;
    if (bytes < (size_t(1) << 20)) return;  // a few pages: not worth the loop
    auto* bytes_of = static_cast<volatile unsigned char*>(host);
    for (size_t k = 0; k < bytes; k += kPage) bytes_of[k] = 0;
}

}  // namespace

void copy_to_host(const Context& ctx, void* host, const void* device, size_t bytes) {
    if (!bytes) return;
    touch_pages(host, bytes);
    ctx.copy_async(host, device, bytes, cudaMemcpyDeviceToHost);
    ctx.synchronize("copying a result back to the host");
}

void download(const Context& ctx, const float* device, float* host, size_t count) {
    copy_to_host(ctx, host, device, count * sizeof(float));
}

void allow_dynamic_smem(const void* kernel, int smem_bytes, const std::string& what, const char* remedy) {
    int device = 0, optin = 0;
    ATTNSCOPE_CUDA_CHECK(cudaGetDevice(&device));
    ATTNSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (smem_bytes > optin)
        throw Error(what + " needs " + std::to_string(smem_bytes) + " bytes of shared memory per block but this GPU allows " +
                    std::to_string(optin) + ": " + remedy);
    ATTNSCOPE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
}

std::string probe_device() {
    static std::once_flag once;
    static std::string reason;
    std::call_once(once, [] {
        int count = 0;
        const cudaError_t status = cudaGetDeviceCount(&count);
        if (status != cudaSuccess) {
            (void)cudaGetLastError();
            reason = std::string("no CUDA device found (cudaGetDeviceCount: ") + cudaGetErrorString(status) + ")";
            return;
        }
        if (count == 0) {
            reason = "no CUDA device found (cudaGetDeviceCount reported 0 devices)";
            return;
        }
        cudaDeviceProp prop{};
        const cudaError_t props = cudaGetDeviceProperties(&prop, 0);
        if (props != cudaSuccess) {
            (void)cudaGetLastError();
            reason = std::string("CUDA device 0 cannot be queried (") + cudaGetErrorString(props) + ")";
            return;
        }
        if (prop.major < 8)
            reason = std::string("CUDA device 0 (") + prop.name + ") is sm_" + std::to_string(prop.major) +
                     std::to_string(prop.minor) + "; the CUDA backend needs sm_80 or newer";
    });
    return reason;
}

std::string device_description() {
    cudaDeviceProp prop{};
    ATTNSCOPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int runtime = 0;
    ATTNSCOPE_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    char memory[32];
    std::snprintf(memory, sizeof memory, "%.1f GiB", double(prop.totalGlobalMem) / double(1ull << 30));
    return std::string("CUDA, ") + prop.name + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
           memory + "), runtime " + std::to_string(runtime / 1000) + "." + std::to_string((runtime % 1000) / 10) +
           ", cuBLAS";
}

}  // namespace attnscope::cuda
