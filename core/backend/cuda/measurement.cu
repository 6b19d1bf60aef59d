// attnscope — timing and memory figures of the CUDA backend: CUDA event pairs on the context's stream (the
// device time of a primitive call, and of its host↔device copies) and the high-water mark of the tracked allocator
// of common.cu.
#include "core/backend/cuda/common.cuh"

namespace attnscope::cuda {

class EventPair {
public:
    EventPair() {
        ATTNSCOPE_CUDA_CHECK(cudaEventCreate(&m_start));
        try {
            ATTNSCOPE_CUDA_CHECK(cudaEventCreate(&m_stop));
        } catch (...) {
            (void)cudaEventDestroy(m_start);
            throw;
        }
    }
    ~EventPair() {
        (void)cudaEventDestroy(m_start);
        (void)cudaEventDestroy(m_stop);
    }
    EventPair(const EventPair&) = delete;
    EventPair& operator=(const EventPair&) = delete;
    cudaEvent_t start() const { return m_start; }
    cudaEvent_t stop() const { return m_stop; }

private:
    cudaEvent_t m_start = nullptr;
    cudaEvent_t m_stop = nullptr;
};

void EventPairDeleter::operator()(EventPair* events) const noexcept { delete events; }

EventPairPtr make_event_pair() { return EventPairPtr(new EventPair()); }

void record_start(Context& ctx, EventPair& events) {
    ATTNSCOPE_CUDA_CHECK(cudaEventRecord(events.start(), ctx.stream()));
    ctx.start_copy_clock();
}

double record_stop(Context& ctx, EventPair& events, CopyTime* copies) {
    ATTNSCOPE_CUDA_CHECK(cudaEventRecord(events.stop(), ctx.stream()));
    ATTNSCOPE_CUDA_CHECK(cudaEventSynchronize(events.stop()));  // every copy event before it has completed too
    float ms = 0;
    ATTNSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start(), events.stop()));
    const auto [copy_ms, copy_bytes] = ctx.stop_copy_clock();
    if (copies) copies->ms = copy_ms, copies->bytes = copy_bytes;
    return double(ms);
}

int64_t device_free_bytes() {
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return int64_t(free_bytes + device_bytes_cached());  // this thread's cached blocks are free to its requests
}

void set_device_peak(int64_t bytes) { device_memory_counters().peak.store(bytes); }

}  // namespace attnscope::cuda
