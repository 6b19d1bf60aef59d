// attnscope tests — a CPU stand-in for <cuda_runtime.h> that lets the host compiler run the project's CUDA
// kernels (core/backend/cuda/*.cuh) unchanged: every thread of a block is a std::thread, __syncthreads() and
// __syncwarp() are barriers, __shfl_xor_sync/__shfl_sync exchange through a per-block buffer between two
// warp barriers, and blocks run one after another. Only the emulation test target puts this folder on its
// include path (before the real CUDA headers); nothing in the product includes it. It checks indexing,
// masking, synchronisation points and shared-memory bounds of the kernels where no GPU exists; it says
// nothing about speed, and only what the kernel does under this one legal schedule of its threads.
#pragma once
#include <barrier>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__
#define __launch_bounds__(...)

using cudaError_t = int;
using cudaStream_t = struct CUstream_st*;
using cudaEvent_t = struct CUevent_st*;  // named by common.cuh's copy clock; never created here
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
constexpr cudaError_t cudaSuccess = 0;

/// Grid and block sizes as in CUDA.
struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    constexpr dim3() = default;
    constexpr dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

// The built-in variables, per emulated thread.
inline thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;

/// CUDA's integer min in device code.
inline int min(int a, int b) { return a < b ? a : b; }

namespace cuda_emu {

/// Shared state of the block being run: its barriers and the shuffle exchange buffer.
struct Block {
    std::barrier<> all;                                  // __syncthreads
    std::vector<std::unique_ptr<std::barrier<>>> warps;  // __syncwarp / shuffles, one per warp
    std::vector<float> exchange;                         // one slot per thread for __shfl_xor_sync
    explicit Block(int threads) : all(threads), exchange(std::size_t(threads)) {
        for (int w = 0; w < threads / 32; ++w) warps.push_back(std::make_unique<std::barrier<>>(32));
    }
};
inline thread_local Block* current = nullptr;

/// Dynamic shared memory of the emulated block: the kernel's `extern __shared__` array, which the test
/// defines. Before each block it is filled with NaN so reads of unwritten cells poison the results, and
/// after each block the cells past `used` must still be NaN (no write past the launch's shared memory).
struct SharedArena {
    float* data = nullptr;
    std::size_t total = 0, used = 0;
    std::size_t overruns = 0;  // blocks that wrote past `used`
};
inline SharedArena shared_arena;

/// Runs `body` (a call of the kernel) for every thread of every block: kernel<<<grid, block, smem_bytes>>>.
template <class Body>
void launch(dim3 grid, dim3 block, std::size_t smem_bytes, Body body) {
    if (block.x % 32 != 0 || block.y != 1 || block.z != 1)
        throw std::logic_error("the CUDA emulator runs 1-D blocks of whole warps only");
    SharedArena& arena = shared_arena;
    if (smem_bytes > arena.total * sizeof(float)) throw std::logic_error("the emulated shared memory is too small");
    arena.used = smem_bytes / sizeof(float);
    for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
            for (unsigned x = 0; x < grid.x; ++x) {
                for (std::size_t i = 0; i < arena.total; ++i) arena.data[i] = NAN;
                Block state(int(block.x));
                std::vector<std::thread> threads;
                for (unsigned t = 0; t < block.x; ++t)
                    threads.emplace_back([&, t] {
                        current = &state;
                        threadIdx = dim3(t), blockIdx = dim3(x, y, z), blockDim = block, gridDim = grid;
                        body();
                    });
                for (std::thread& th : threads) th.join();
                for (std::size_t i = arena.used; i < arena.total; ++i)
                    if (!std::isnan(arena.data[i])) {
                        ++arena.overruns;
                        break;
                    }
            }
}

}  // namespace cuda_emu

inline void __syncthreads() { cuda_emu::current->all.arrive_and_wait(); }

inline void __syncwarp(unsigned = 0xffffffffu) { cuda_emu::current->warps[threadIdx.x / 32]->arrive_and_wait(); }

inline float __shfl_xor_sync(unsigned, float value, int lane_mask) {
    cuda_emu::Block& b = *cuda_emu::current;
    const unsigned t = threadIdx.x, warp = t / 32, lane = t % 32;
    b.exchange[t] = value;
    b.warps[warp]->arrive_and_wait();
    const float other = b.exchange[warp * 32 + (lane ^ unsigned(lane_mask))];
    b.warps[warp]->arrive_and_wait();  // nobody overwrites a slot before its reader is done
    return other;
}

inline float __shfl_sync(unsigned, float value, int src_lane) {
    cuda_emu::Block& b = *cuda_emu::current;
    const unsigned t = threadIdx.x, warp = t / 32;
    b.exchange[t] = value;
    b.warps[warp]->arrive_and_wait();
    const float other = b.exchange[warp * 32 + (unsigned(src_lane) & 31u)];
    b.warps[warp]->arrive_and_wait();
    return other;
}
