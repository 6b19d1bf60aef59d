// The caching allocator under the CUDA backend's device memory (core/backend/interface/block_pool.h), over a fake raw
// allocator with a capacity: what is reused, what is not, and what happens when the raw allocator runs out.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <set>

#include "core/backend/interface/block_pool.h"

namespace attnscope {
namespace {

/// Host memory standing in for a device of `capacity` bytes; counts its calls.
struct FakeDevice {
    size_t capacity = size_t(64) << 20, used = 0;
    int allocs = 0, frees = 0;
    std::map<void*, size_t> live;  // block → bytes
    BlockPool pool{[this](size_t bytes) -> void* {
                       if (used + bytes > capacity) return nullptr;
                       void* p = std::malloc(bytes);
                       used += bytes, ++allocs, live[p] = bytes;
                       return p;
                   },
                   [this](void* p) {
                       used -= live.at(p), ++frees;
                       live.erase(p);
                       std::free(p);
                   }};
};

TEST(BlockPool, SizeClassesRoundUpTo512BytesThen2MiB) {
    EXPECT_EQ(BlockPool::size_class(1), 512u);
    EXPECT_EQ(BlockPool::size_class(512), 512u);
    EXPECT_EQ(BlockPool::size_class(513), 1024u);
    EXPECT_EQ(BlockPool::size_class(size_t(1) << 20), size_t(1) << 20);
    EXPECT_EQ(BlockPool::size_class((size_t(1) << 20) + 1), size_t(2) << 20);
    EXPECT_EQ(BlockPool::size_class((size_t(5) << 20) + 7), size_t(6) << 20);
}

TEST(BlockPool, RepeatedRunsOfOneShapeAllocateOnce) {
    FakeDevice d;
    for (int run = 0; run < 5; ++run) {  // one "run": three buffers in, out in reverse
        void* q = d.pool.acquire(3000);
        void* k = d.pool.acquire(3000);
        void* o = d.pool.acquire(size_t(3) << 20);
        ASSERT_TRUE(q && k && o);
        EXPECT_NE(q, k);
        d.pool.give_back(o, size_t(3) << 20), d.pool.give_back(k, 3000), d.pool.give_back(q, 3000);
    }
    EXPECT_EQ(d.allocs, 3);
    EXPECT_EQ(d.frees, 0);
    EXPECT_EQ(d.pool.cached_bytes(), 2 * 3072u + (size_t(4) << 20));
}

TEST(BlockPool, OtherClassesAreNotReused) {
    FakeDevice d;
    void* small = d.pool.acquire(1000);
    d.pool.give_back(small, 1000);
    void* other = d.pool.acquire(5000);  // another class: a new block, the cached one stays
    EXPECT_NE(other, small);
    EXPECT_EQ(d.allocs, 2);
    EXPECT_EQ(d.pool.cached_bytes(), 1024u);
    d.pool.give_back(other, 5000);
}

TEST(BlockPool, OutOfMemoryFreesTheCacheAndRetriesOnce) {
    FakeDevice d;
    d.capacity = size_t(10) << 20;
    void* a = d.pool.acquire(size_t(6) << 20);
    ASSERT_TRUE(a);
    d.pool.give_back(a, size_t(6) << 20);  // 6 MiB cached, 4 MiB left on the "device"
    void* b = d.pool.acquire(size_t(8) << 20);  // fails, trims the 6 MiB, succeeds
    ASSERT_TRUE(b);
    EXPECT_EQ(d.frees, 1);
    EXPECT_EQ(d.pool.cached_bytes(), 0u);
    EXPECT_EQ(d.pool.acquire(size_t(4) << 20), nullptr) << "8 of 10 MiB in use, nothing cached: out of memory";
    d.pool.give_back(b, size_t(8) << 20);
}

TEST(BlockPool, TrimAndDestructionFreeEveryCachedBlock) {
    std::set<void*> live;
    int allocs = 0;
    {
        BlockPool pool([&](size_t bytes) { void* p = std::malloc(bytes); live.insert(p), ++allocs; return p; },
                       [&](void* p) { live.erase(p), std::free(p); });
        for (size_t bytes : {size_t(100), size_t(100), size_t(1) << 22}) {
            void* p = pool.acquire(bytes);
            pool.give_back(p, bytes);
        }
        EXPECT_EQ(allocs, 2);  // the second 100 B request reused the first block
        pool.trim();
        EXPECT_TRUE(live.empty());
        void* p = pool.acquire(100);
        pool.give_back(p, 100);
        EXPECT_EQ(live.size(), 1u);
    }
    EXPECT_TRUE(live.empty()) << "the destructor frees the cache";
}

TEST(BlockPool, BlocksBeyondTheCacheLimitAreFreedAtOnce) {
    std::map<void*, size_t> live;
    BlockPool pool([&](size_t bytes) { void* p = std::malloc(bytes); live[p] = bytes; return p; },
                   [&](void* p) { live.erase(p), std::free(p); }, size_t(3) << 20);
    void* a = pool.acquire(size_t(2) << 20);
    void* b = pool.acquire(size_t(2) << 20);
    pool.give_back(a, size_t(2) << 20);  // cached: 2 of 3 MiB
    pool.give_back(b, size_t(2) << 20);  // would make 4: freed
    EXPECT_EQ(pool.cached_bytes(), size_t(2) << 20);
    EXPECT_EQ(live.size(), 1u);
    EXPECT_EQ(live.count(a), 1u);
}

TEST(BlockPool, ZeroBytesAndNullAreNothing) {
    FakeDevice d;
    EXPECT_EQ(d.pool.acquire(0), nullptr);
    d.pool.give_back(nullptr, 100);
    EXPECT_EQ(d.allocs, 0);
    EXPECT_EQ(d.pool.cached_bytes(), 0u);
}

}  // namespace
}  // namespace attnscope
