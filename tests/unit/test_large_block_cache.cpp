// Freed large blocks are handed to the next allocation of the same size, never to two live buffers, within a cap,
// and back to the system before a request is refused for want of memory.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstdlib>
#include <new>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/host_memory.h"
#include "core/large_block_cache.h"
#include "core/memory.h"
#include "core/tensor.h"

namespace attnscope {
namespace {

constexpr int kRows = 4096, kCols = 4096;  // 64 MiB of floats: above kLargeBlockBytes
constexpr std::size_t kBytes = std::size_t(kRows) * kCols * sizeof(float);

#define SKIP_WITHOUT_CACHE()                                                                          \
    if (large_block_cap_bytes() < 2 * kBytes)                                                        \
    GTEST_SKIP() << "the large-block cache is off in this build (AddressSanitizer) or too small here"

/// Empties the cache, then frees one tensor of kRows × kCols into it.
void keep_one_freed_block() {
    large_block_release_all();
    const Tensor3 freed = Tensor3::uninitialized(1, kRows, kCols);
}

TEST(LargeBlockCache, AFreedLargeTensorsBlockServesTheNextOfItsSizeOnly) {
    SKIP_WITHOUT_CACHE();
    large_block_release_all();
    const float* first = nullptr;
    {
        const Tensor3 a = Tensor3::uninitialized(1, kRows, kCols);
        first = a.data();
    }
    EXPECT_EQ(large_block_kept_bytes(), kBytes);
    {
        const Tensor3 other_size = Tensor3::uninitialized(1, kRows, kCols + 16);
        EXPECT_NE(other_size.data(), first);
        EXPECT_EQ(large_block_kept_bytes(), kBytes);  // still kept for its own size
    }
    const Tensor3 b = Tensor3::uninitialized(1, kRows, kCols);
    EXPECT_EQ(b.data(), first);
    large_block_release_all();
}

TEST(LargeBlockCache, AReusedBlockIsFilledAsAsked) {
    SKIP_WITHOUT_CACHE();
    large_block_release_all();
    const float* first = nullptr;
    {
        const Tensor3 dirty(1, kRows, kCols, 7.0f);
        first = dirty.data();
    }
    const Tensor3 zeros(1, kRows, kCols);
    ASSERT_EQ(zeros.data(), first) << "the block was not reused, so this test shows nothing";
    int64_t nonzero = 0;
    for (int64_t k = 0; k < zeros.size(); ++k) nonzero += zeros.data()[k] != 0.0f;
    EXPECT_EQ(nonzero, 0);
    large_block_release_all();
}

TEST(LargeBlockCache, PeakMemoryCountsAReusedBlock) {
    SKIP_WITHOUT_CACHE();
    keep_one_freed_block();
    ASSERT_EQ(large_block_kept_bytes(), kBytes);
    PeakMemoryScope scope;
    { const Tensor3 reused = Tensor3::uninitialized(1, kRows, kCols); }
    EXPECT_GE(scope.peak_bytes(), int64_t(kBytes));
    large_block_release_all();
}

TEST(LargeBlockCache, KeptBytesStayWithinTheCapOldestFreedFirst) {
    SKIP_WITHOUT_CACHE();
    large_block_release_all();
    const std::size_t cap = large_block_cap_bytes();
    // Untouched blocks cost address space only. Each is kept; the oldest go once the cap is reached.
    const int blocks = int(cap / kBytes) + 3;
    std::vector<void*> all;
    for (int k = 0; k < blocks; ++k) {
        void* p = ::operator new(kBytes, std::align_val_t{64});
        all.push_back(p);
        ASSERT_TRUE(large_block_keep(p, kBytes));
        EXPECT_LE(large_block_kept_bytes(), cap);
    }
    EXPECT_EQ(large_block_kept_bytes(), cap / kBytes * kBytes);
    // The newest comes back first; the three oldest were freed.
    EXPECT_EQ(large_block_take(kBytes), all.back());
    ::operator delete(all.back(), std::align_val_t{64});
    // Too small or above the cap: not kept, the caller frees.
    void* small = ::operator new(kLargeBlockBytes - 64, std::align_val_t{64});
    EXPECT_FALSE(large_block_keep(small, kLargeBlockBytes - 64));
    ::operator delete(small, std::align_val_t{64});
    EXPECT_FALSE(large_block_keep(nullptr, cap + 64));
    EXPECT_EQ(large_block_release_all(), cap / kBytes * kBytes - kBytes);
    EXPECT_EQ(large_block_kept_bytes(), 0u);
}

TEST(LargeBlockCache, NoBlockIsHandedToTwoLiveTensors) {
    SKIP_WITHOUT_CACHE();
    large_block_release_all();
    constexpr int kThreads = 4, kRounds = 12;
    std::vector<int> clashes(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([t, &clashes] {
            for (int r = 0; r < kRounds; ++r) {
                Tensor3 mine = Tensor3::uninitialized(1, kRows / 2, kCols);  // 32 MiB: every thread the same size
                const float mark = float(t * 1000 + r);
                mine.data()[0] = mark, mine.data()[mine.size() - 1] = mark;
                std::this_thread::yield();
                clashes[t] += mine.data()[0] != mark || mine.data()[mine.size() - 1] != mark;
            }
        });
    for (std::thread& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(clashes[t], 0) << "thread " << t;
    large_block_release_all();
}

TEST(LargeBlockCache, KeptBlocksAreHandedBackBeforeARequestIsRefused) {
    SKIP_WITHOUT_CACHE();
    keep_one_freed_block();
    ASSERT_EQ(large_block_kept_bytes(), kBytes);
    EXPECT_THROW(require_host_memory(int64_t(1) << 60, "a test request", "none"), Error);
    EXPECT_EQ(large_block_kept_bytes(), 0u);
}

TEST(LargeBlockCacheDeathTest, KeptBlocksAreHandedBackBeforeAnAllocationFails) {
    SKIP_WITHOUT_CACHE();
    // In a child process: the address space is capped 300 MiB above what it holds with a 512 MiB block kept (never
    // touched: address space only), then 400 MiB of another size are asked for. They fit only once the kept block
    // is unmapped; the heap's free memory (glibc serves a request from it when the mmap fails) is far smaller.
    constexpr std::size_t kKept = std::size_t(512) << 20;
    if (large_block_cap_bytes() < kKept) GTEST_SKIP() << "the cache's cap is below 512 MiB here";
    GTEST_FLAG_SET(death_test_style, "threadsafe");  // the child starts afresh, with no other thread
    EXPECT_EXIT(
        {
            large_block_release_all();
            if (!large_block_keep(::operator new(kKept, std::align_val_t{64}), kKept)) std::_Exit(5);
            const int64_t size = proc_kb_field("/proc/self/status", "VmSize");  // in bytes
            if (size <= 0) std::_Exit(3);
            rlimit cap{};
            cap.rlim_cur = cap.rlim_max = rlim_t(size) + (rlim_t(300) << 20);
            if (setrlimit(RLIMIT_AS, &cap) != 0) std::_Exit(4);
            try {
                const Tensor3 other = Tensor3::uninitialized(1, 10240, 10240);  // 400 MiB
                std::_Exit(large_block_kept_bytes() == 0 && other.data() ? 0 : 2);
            } catch (const std::bad_alloc&) {
                std::_Exit(1);
            }
        },
        ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace attnscope
