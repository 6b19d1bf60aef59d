// attnscope — freed large blocks kept for the next allocation of the same size.
// A block of 32 MiB or more is a fresh mmap from glibc (memory.cpp), so its first touch costs a page fault and a
// kernel zeroing per page: about 0.1 s per GiB on this project's machines, seconds per GiB in a virtual machine
// whose host has not backed the memory yet. The GUI's batches at n = 16384 allocate the same n×n matrices on every
// edit; handing a batch the blocks its predecessor freed removes that cost (docs/PERFORMANCE.md, "Large blocks
// kept for reuse"). The cache is off under AddressSanitizer, so a use after free of a large block stays visible.
#pragma once
#include <cstddef>

namespace attnscope {

/// Blocks smaller than this are not kept: the heap already reuses them (memory.cpp).
constexpr std::size_t kLargeBlockBytes = std::size_t(32) << 20;

/// A kept block of exactly `bytes`, removed from the cache (its old contents), or nullptr when none is kept.
void* large_block_take(std::size_t bytes);

/// Keeps block p of `bytes` (from ::operator new with 64-byte alignment) for reuse, freeing the oldest kept blocks
/// beyond the cap; false when it is not kept (below kLargeBlockBytes, above the cap, cache off): the caller frees it.
bool large_block_keep(void* p, std::size_t bytes) noexcept;

/// Frees every kept block; returns the bytes freed (a caller short of memory asks before giving up).
std::size_t large_block_release_all();

/// Bytes kept now.
std::size_t large_block_kept_bytes();

/// The most bytes ever kept at once: the smaller of 2 GiB and an eighth of physical memory; 0 when the cache is off.
std::size_t large_block_cap_bytes();

}  // namespace attnscope
