// attnscope — host ranges whose device copies stay on the device while their owner promises not to change them (a
// bench point's Q, K and V across its runs, as a framework's tensors would stay). A primitive about to upload a
// read-only input asks for the device address of its host range first; a range inside a resident one is served
// from that copy at the same offset. Header-only and templated on the device buffer, so the lookup is tested on the
// host (tests/unit/test_resident_inputs.cpp); core/backend/cuda/common.cu keeps one per CUDA context.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace attnscope {

/// Device copies of host byte ranges. Buffer is movable and has `get()`, the device address of the copy's first byte.
template <class Buffer>
class ResidentInputs {
public:
    /// Registers `copy`, which holds host bytes [host, host + bytes).
    void add(const void* host, size_t bytes, Buffer copy) { m_entries.push_back({host, bytes, std::move(copy)}); }
    /// The device address of host bytes [host, host + bytes) when they lie inside one registered range, else nullptr
    /// (a range only partly inside is uploaded as usual).
    const void* find(const void* host, size_t bytes) const {
        const uintptr_t p = reinterpret_cast<uintptr_t>(host);  // addresses of unrelated arrays compared as integers
        for (const Entry& e : m_entries) {
            const uintptr_t start = reinterpret_cast<uintptr_t>(e.host);
            if (p >= start && bytes <= e.bytes && p - start <= e.bytes - bytes)
                return static_cast<const unsigned char*>(static_cast<const void*>(e.copy.get())) + (p - start);
        }
        return nullptr;
    }
    /// True when [host, host + bytes) is resident already (keeping it again would copy nothing new).
    bool contains(const void* host, size_t bytes) const { return find(host, bytes) != nullptr; }
    /// Drops every copy (the buffers free themselves).
    void clear() { m_entries.clear(); }
    /// Bytes held on the device.
    size_t bytes() const {
        size_t total = 0;
        for (const Entry& e : m_entries) total += e.bytes;
        return total;
    }

private:
    struct Entry {
        const void* host;
        size_t bytes;
        Buffer copy;
    };
    std::vector<Entry> m_entries;
};

}  // namespace attnscope
