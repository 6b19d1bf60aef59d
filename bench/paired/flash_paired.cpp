// attnscope_flash_paired — the CPU flash kernel against the machine's SGEMM roof, measured in PAIRS so a shared,
// noisy machine cancels out: each round runs OpenBLAS sgemm, Eigen sgemm and flash back to back (order rotated
// per round), and the share of a round is flash's rate over the faster roof of that same round. Rates count
// FLOPs the way the cost model does (exact_attention_flops: 4·n²·d per head, causal n(n+1)·2d) over CPU time
// (CLOCK_PROCESS_CPUTIME_ID, both threads) and over wall time.
//   attnscope_flash_paired [--n 4096] [--heads 8] [--d 32,64,128] [--causal 0,1] [--rounds 7] [--tiles 64x64,128x128]
//                          [--roof 2048] [--gap-ms 150]
//   attnscope_flash_paired --profile [--d 32,64,128] [--causal 0,1] [--tiles ...]   per-phase CPU-time profile
//   attnscope_flash_paired --pooled 1024 [--n …] [--heads …] [--d …] [--causal …] [--tiles …] [--rounds …] [--portable]
//                                         flash against flash + the max-pooled picture of P (DenseAttentionArgs::pooled)
// --portable runs the Eigen path (CpuKernels::Portable) instead of the vector kernel in the paired and pooled modes.
// Every mode first prints the machine: CPU model, threads, and the ISA the kernels were compiled for (core/cpu_isa.h).
// The pooled mode times (flash, flash + pooled s×s) back to back, order alternating per round, and reports the ratio
// of the two times of each round.
// The profile runs one thread over the query tiles of one head and splits each query tile's thread CPU time over
// the phases of its loop by their TSC ticks: the vector kernel's phases (pack Qᵀ, Sᵀ = K·Qᵀ with fused mask+max, exp/sum/rescale factors, Oᵀ += Vᵀ·Pᵀ with
// fused rescale, write O) and, for comparison, the Eigen path's (Q·Kᵀ, max, exp, rescale, P·V), once with Eigen's
// products and once with per-tile single-threaded cblas_sgemm products. All three alternate tile by tile.
#include <cblas.h>
#include <omp.h>
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/backend/cpu/cpu_flash_tile.h"
#include "core/backend/cpu/cpu_online_tile.h"
#include "core/backend/cpu/cpu_primitives.h"
#include "core/bench/machine.h"
#include "core/cpu_isa.h"
#include "core/variants/variant.h"

namespace attnscope {
namespace {

struct Clocks {
    double cpu, wall;  // seconds
};

double cpu_now() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

/// This thread's CPU time in ns: the profile's clock (TSC cycles would count time the thread spent preempted
/// on a loaded machine).
double thread_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return 1e9 * double(ts.tv_sec) + double(ts.tv_nsec);
}

double wall_now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/// Times f() once in CPU and wall seconds. The gap before it lets the other runtime's spinning workers
/// (OpenBLAS pthreads, OpenMP) go idle so their CPU time is not charged to f.
template <class F>
Clocks timed(F&& f, int gap_ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms));
    const double c0 = cpu_now(), w0 = wall_now();
    f();
    return {cpu_now() - c0, wall_now() - w0};
}

std::vector<int> int_list(const char* s) {
    std::vector<int> out;
    for (const char* p = s; *p;) {
        out.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
    }
    return out;
}

std::vector<std::pair<int, int>> tile_list(const char* s) {
    std::vector<std::pair<int, int>> out;
    for (const char* p = s; *p;) {
        const int r = std::atoi(p);
        while (*p && *p != 'x') ++p;
        const int c = *p ? std::atoi(++p) : r;
        out.push_back({r, c});
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
    }
    return out;
}

void fill(Tensor3& t, uint64_t seed) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int64_t k = 0; k < t.size(); ++k) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        t.data()[k] = float(int64_t(x >> 40) - (int64_t(1) << 23)) / float(1 << 23);
    }
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t k = v.size() / 2;
    return v.size() % 2 ? v[k] : 0.5 * (v[k - 1] + v[k]);
}

struct Options {
    int n = 4096, heads = 8, rounds = 7, roof = 2048, gap_ms = 150;
    std::vector<int> dims{32, 64, 128}, causal{0, 1};
    std::vector<std::pair<int, int>> tiles{{0, 0}};  // 0: the primitive's defaults
    bool profile = false;
    int pooled = 0;  // > 0: the pooled-picture overhead mode with s = pooled
    CpuKernels kernels = CpuKernels::Vector;
};

void paired(const Options& o) {
    const int N = o.roof;
    std::vector<float> A(size_t(N) * N), B(size_t(N) * N), C(size_t(N) * N);
    for (size_t k = 0; k < A.size(); ++k) A[k] = float(k % 97) / 97.0f - 0.5f, B[k] = float(k % 89) / 89.0f - 0.5f;
    Eigen::Map<Eigen::MatrixXf> eA(A.data(), N, N), eB(B.data(), N, N), eC(C.data(), N, N);
    const double roof_flops = 2.0 * N * double(N) * N;
    auto blas = [&] {
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, A.data(), N, B.data(), N, 0.0f, C.data(), N);
    };
    // The project builds with EIGEN_DONT_PARALLELIZE (Eigen runs inside OpenMP tasks), so Eigen's SGEMM is given
    // both threads the way Eigen would split it itself: one column panel of C per thread.
    const int threads = omp_get_max_threads();
    auto eigen = [&] {
#pragma omp parallel for schedule(static)
        for (int part = 0; part < threads; ++part) {
            const int c0 = int(int64_t(N) * part / threads), c1 = int(int64_t(N) * (part + 1) / threads);
            eC.middleCols(c0, c1 - c0).noalias() = eA * eB.middleCols(c0, c1 - c0);
        }
    };
    blas(), eigen();  // warm-up: thread pools, page faults
    std::printf("threads: OpenMP %d, OpenBLAS %d (%s)\n", omp_get_max_threads(), openblas_get_num_threads(),
                openblas_get_config());
    std::printf("roof: %d² sgemm; share = flash rate / max(OpenBLAS, Eigen) of the same round; %d rounds, "
                "median [min–max]\n", N, o.rounds);
    std::printf("%-5s %-4s %-8s | %8s %8s %8s | %-22s | %-22s | %8s\n", "d", "caus", "tiles", "flash", "blas", "eigen",
                "CPU share", "wall share", "flash ms");
    for (int d : o.dims)
        for (int causal : o.causal)
            for (auto [br, bc] : o.tiles) {
                Tensor3 Q(o.heads, o.n, d), K(o.heads, o.n, d), V(o.heads, o.n, d), O(o.heads, o.n, d),
                    L(o.heads, o.n, 1);
                fill(Q, 1), fill(K, 2), fill(V, 3);
                DenseAttentionArgs a;
                a.Q = &Q, a.K = &K, a.V = &V, a.O = &O, a.lse = &L, a.scale = 1.0f / std::sqrt(float(d));
                a.causal = causal != 0;
                if (br > 0) a.tile_rows = br, a.tile_cols = bc;
                const double flops = exact_attention_flops(o.heads, o.n, d, d, a.causal);
                auto flash = [&] { cpu_dense_attention(a, o.kernels); };
                flash();
                std::vector<double> fc, fw, bc_, bw, ec, ew, share_c, share_w, ms;
                for (int r = 0; r < o.rounds; ++r) {
                    Clocks f{}, b{}, e{};
                    // Rotate the order so no kernel always follows the same neighbour.
                    switch (r % 3) {
                        case 0: b = timed(blas, o.gap_ms), e = timed(eigen, o.gap_ms), f = timed(flash, o.gap_ms); break;
                        case 1: f = timed(flash, o.gap_ms), b = timed(blas, o.gap_ms), e = timed(eigen, o.gap_ms); break;
                        default: e = timed(eigen, o.gap_ms), f = timed(flash, o.gap_ms), b = timed(blas, o.gap_ms); break;
                    }
                    fc.push_back(flops / f.cpu * 1e-9), fw.push_back(flops / f.wall * 1e-9);
                    bc_.push_back(roof_flops / b.cpu * 1e-9), bw.push_back(roof_flops / b.wall * 1e-9);
                    ec.push_back(roof_flops / e.cpu * 1e-9), ew.push_back(roof_flops / e.wall * 1e-9);
                    share_c.push_back(fc.back() / std::max(bc_.back(), ec.back()));
                    share_w.push_back(fw.back() / std::max(bw.back(), ew.back()));
                    ms.push_back(f.wall * 1e3);
                }
                char tiles[32];
                std::snprintf(tiles, sizeof tiles, "%dx%d", a.tile_rows, a.tile_cols);
                char sc[64], sw[64];
                std::snprintf(sc, sizeof sc, "%5.1f%% [%5.1f–%5.1f]", 100 * median(share_c),
                              100 * *std::min_element(share_c.begin(), share_c.end()),
                              100 * *std::max_element(share_c.begin(), share_c.end()));
                std::snprintf(sw, sizeof sw, "%5.1f%% [%5.1f–%5.1f]", 100 * median(share_w),
                              100 * *std::min_element(share_w.begin(), share_w.end()),
                              100 * *std::max_element(share_w.begin(), share_w.end()));
                std::printf("%-5d %-4d %-8s | %8.1f %8.1f %8.1f | %-22s | %-22s | %8.1f\n", d, causal, tiles,
                            median(fc), median(bc_), median(ec), sc, sw, median(ms));
                std::fflush(stdout);
            }
    std::printf("(flash/blas/eigen: median GFLOP/s per CPU-second of both threads)\n");
}

/// Flash with and without a pooled (H, s, s) picture of P in pairs (order alternating per round): per round the ratio
/// with / without of CPU time and of wall time, median [min–max].
void pooled_overhead(const Options& o) {
    const int s = std::min(o.n, o.pooled);
    std::printf("pooled picture overhead: n = %d, %d heads, pooled %d×%d, %s kernels, %d rounds of (flash, flash + "
                "pooled), order alternating; ratio = with / without in the same round, median [min–max]\n", o.n,
                o.heads, s, s, o.kernels == CpuKernels::Vector ? "vector" : "portable", o.rounds);
    std::printf("%-5s %-4s %-8s | %10s %10s | %-24s | %-24s\n", "d", "caus", "tiles", "plain ms", "pooled ms",
                "CPU ratio", "wall ratio");
    for (int d : o.dims)
        for (int causal : o.causal)
            for (auto [br, bc] : o.tiles) {
                Tensor3 Q(o.heads, o.n, d), K(o.heads, o.n, d), V(o.heads, o.n, d), O(o.heads, o.n, d),
                    L(o.heads, o.n, 1), pooled(o.heads, s, s);
                fill(Q, 1), fill(K, 2), fill(V, 3);
                DenseAttentionArgs a;
                a.Q = &Q, a.K = &K, a.V = &V, a.O = &O, a.lse = &L, a.scale = 1.0f / std::sqrt(float(d));
                a.causal = causal != 0;
                if (br > 0) a.tile_rows = br, a.tile_cols = bc;
                auto plain = [&] {
                    a.pooled = nullptr;
                    cpu_dense_attention(a, o.kernels);
                };
                auto with = [&] {
                    a.pooled = &pooled;
                    cpu_dense_attention(a, o.kernels);
                };
                plain(), with();  // warm-up: thread pool, page faults
                std::vector<double> rc, rw, pw, ww;
                for (int r = 0; r < o.rounds; ++r) {
                    Clocks p{}, w{};
                    if (r % 2 == 0) p = timed(plain, o.gap_ms), w = timed(with, o.gap_ms);
                    else w = timed(with, o.gap_ms), p = timed(plain, o.gap_ms);
                    rc.push_back(w.cpu / p.cpu), rw.push_back(w.wall / p.wall);
                    pw.push_back(p.wall * 1e3), ww.push_back(w.wall * 1e3);
                }
                char tiles[32], c[64], wl[64];
                std::snprintf(tiles, sizeof tiles, "%dx%d", a.tile_rows, a.tile_cols);
                std::snprintf(c, sizeof c, "%.4f [%.4f–%.4f]", median(rc), *std::min_element(rc.begin(), rc.end()),
                              *std::max_element(rc.begin(), rc.end()));
                std::snprintf(wl, sizeof wl, "%.4f [%.4f–%.4f]", median(rw), *std::min_element(rw.begin(), rw.end()),
                              *std::max_element(rw.begin(), rw.end()));
                std::printf("%-5d %-4d %-8s | %10.1f %10.1f | %-24s | %-24s\n", d, causal, tiles, median(pw),
                            median(ww), c, wl);
                std::fflush(stdout);
            }
}

/// Time-stamp counter: ~20 cycles to read, where a thread-CPU clock read costs ~0.3 µs (a syscall) and would
/// weigh 5–20% of a 64×64 key tile. Phases are stamped with it; spread() then converts them to CPU time.
inline double tsc() { return double(__rdtsc()); }

/// Adds to out[p] the tile loop's CPU time `cpu_ns` split in proportion to the TSC ticks of each phase (a
/// preemption lands in a phase in proportion to its length, so the split stays unbiased on a loaded machine).
void spread(const double* ticks, int phases, double cpu_ns, double* out) {
    double total = 0;
    for (int p = 0; p < phases; ++p) total += ticks[p];
    if (total <= 0) return;
    for (int p = 0; p < phases; ++p) out[p] += cpu_ns * ticks[p] / total;
}

#if ATTNSCOPE_SIMD
/// The kernel's tile loop over query tile i0 of one head, phase by phase (ns of thread CPU time added to t[]).
void kernel_tile(const Tensor3& Q, const Tensor3& K, const Tensor3& V, Tensor3& O, Tensor3& L, int i0, int br, int bc,
                 bool causal, Tensor3& scratch, double* out) {
    double t[5] = {};
    const flash_tile::FlushSubnormals flush;  // as cpu_dense_attention holds around each task
    const double cpu0 = thread_ns();
    // Tensor3 storage is 64-byte aligned like the primitive's scratch (a misaligned tile costs ~10%).
    const int n = Q.rows(), d = Q.cols(), brp = flash_tile::padded_rows(br);
    if (scratch.size() < int64_t(brp) * (2 * d + bc + 4)) scratch = Tensor3(1, 2 * d + bc + 4, brp);
    flash_tile::Tile tile;
    tile.i0 = i0, tile.rows = std::min(br, n - i0), tile.brp = flash_tile::padded_rows(tile.rows), tile.d = d, tile.dv = d;
    tile.qt = scratch.data(), tile.st = tile.qt + size_t(d) * brp, tile.ot = tile.st + size_t(bc) * brp;
    tile.m = tile.ot + size_t(d) * brp, tile.l = tile.m + brp, tile.tmax = tile.l + brp, tile.sum = tile.tmax + brp;
    double c0 = tsc();
    flash_tile::begin(tile, Q.head_data(0), 1.0f / std::sqrt(float(d)));
    double c1 = tsc();
    t[0] += c1 - c0;
    const int key_end = causal ? std::min(n, i0 + tile.rows) : n;
    for (int j0 = 0; j0 < key_end; j0 += bc) {
        const int cols = std::min(bc, key_end - j0);
        c0 = tsc();
        flash_tile::scores(tile, K.head_data(0), j0, cols, causal, ScoreMod{}, 0);
        c1 = tsc();
        flash_tile::softmax(tile, j0, cols, causal);
        const double c2 = tsc();
        flash_tile::accumulate(tile, V.head_data(0), j0, cols, causal);
        const double c3 = tsc();
        t[1] += c1 - c0, t[2] += c2 - c1, t[3] += c3 - c2;
    }
    c0 = tsc();
    flash_tile::finish(tile, O.head_data(0), L.head_data(0));
    t[4] += tsc() - c0;
    spread(t, 5, thread_ns() - cpu0, out);
}
#else
// No vector ISA in this build: there is no tile kernel, and the profile measures the Eigen path's phases alone.
#endif

/// The Eigen path's tile loop (cpu_dense_attention.cpp's tiled_task) over query tile i0, phase by phase. With
/// `blas`, its two products are single-threaded OpenBLAS cblas_sgemm calls instead (the per-tile BLAS option).
void eigen_tile(const Tensor3& Q, const Tensor3& K, const Tensor3& V, int i0, int br, int bc, bool causal,
                Tensor3& qs, Tensor3& s, Tensor3& acc, Tensor3& stt, double* out, bool blas) {
    double t[7] = {};
    const double cpu0 = thread_ns();
    const int n = Q.rows(), d = Q.cols(), rows = std::min(br, n - i0);
    MatView q(qs.head_data(0), rows, d), ac(acc.head_data(0), rows, d);
    float* sp = stt.head_data(0);
    using RowVec = Eigen::Map<Eigen::VectorXf>;
    OnlineTileRows rs{RowVec(sp, rows), RowVec(sp + br, rows), RowVec(sp + 2 * br, rows), RowVec(sp + 3 * br, rows)};
    double c0 = tsc();
    q.noalias() = (1.0f / std::sqrt(float(d))) * Q.head(0).middleRows(i0, rows);
    ac.setZero(), rs.run_max.setConstant(-INFINITY), rs.run_sum.setZero();
    double c1 = tsc();
    t[0] += c1 - c0;
    const int key_end = causal ? std::min(n, i0 + rows) : n;
    for (int j0 = 0; j0 < key_end; j0 += bc) {
        const int cols = std::min(bc, key_end - j0);
        MatView sv(s.head_data(0), rows, cols);
        const bool diagonal = causal && j0 + cols - 1 > i0;
        auto fill_tile = [&](float value) {
            for (int r = 0; r < rows; ++r)
                for (int c = std::max(0, i0 + r - j0 + 1); c < cols; ++c) sv(r, c) = value;
        };
        c0 = tsc();
        if (blas)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, cols, d, 1.0f, q.data(), d,
                        K.head_data(0) + int64_t(j0) * d, d, 0.0f, sv.data(), cols);
        else
            sv.noalias() = q * K.head(0).middleRows(j0, cols).transpose();
        c1 = tsc();
        t[1] += c1 - c0;
        if (diagonal) fill_tile(-INFINITY);
        c0 = tsc();
        t[3] += c0 - c1;
        // online_tile_exp in its two halves: row max + factors, then shift + exp.
        rs.shift = sv.rowwise().maxCoeff();
        for (int r = 0; r < rows; ++r) {
            const OnlineSoftmaxRow row{rs.run_max[r], rs.run_sum[r]};
            const float nm = online_softmax_new_max(row, rs.shift[r]);
            rs.rescale[r] = online_softmax_rescale(row.m, nm);
            rs.shift[r] = nm == -INFINITY ? 0.0f : nm;
            rs.run_max[r] = nm;
        }
        c1 = tsc();
        t[2] += c1 - c0;
        sv.array().colwise() -= rs.shift.array();
        sv.array() = sv.array().exp();
        c0 = tsc();
        t[4] += c0 - c1;
        if (diagonal) fill_tile(0.0f);
        c1 = tsc();
        t[3] += c1 - c0;
        online_tile_rescale(sv, ac, rs);
        c0 = tsc();
        t[5] += c0 - c1;
        if (blas)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, d, cols, 1.0f, sv.data(), cols,
                        V.head_data(0) + int64_t(j0) * d, d, 1.0f, ac.data(), d);
        else
            ac.noalias() += sv * V.head(0).middleRows(j0, cols);
        c1 = tsc();
        t[6] += c1 - c0;
    }
    spread(t, 7, thread_ns() - cpu0, out);
}

void print_phases(const char* title, const char* const* names, const double* t, int phases, const int* product,
                  double cells, int d) {
    double total = 0;
    for (int p = 0; p < phases; ++p) total += t[p];
    std::printf("  %s: %.1f ms CPU, %.3f ns per score cell, %.1f GFLOP/s overall\n", title, total * 1e-6, total / cells,
                4.0 * d * cells / total);
    for (int p = 0; p < phases; ++p) {
        std::printf("    %-18s %5.1f%%  %6.3f ns/cell", names[p], 100 * t[p] / total, t[p] / cells);
        if (product[p]) std::printf("  %6.1f GFLOP/s", 2.0 * d * cells / t[p]);
        std::printf("\n");
    }
}

/// Thread-CPU-time per phase of the tile loop, one thread, every query tile of one head; the kernel's tile and the
/// Eigen path's tiles alternate so all see the same machine. Each query tile's CPU time is split over its phases
/// by their TSC ticks (spread()).
void profile(const Options& o) {
    std::printf("per-phase profile: one thread, one head, n = %d, every query tile, kernel and Eigen tile loops "
                "alternating; thread CPU time\n", o.n);
    for (int d : o.dims)
        for (int causal : o.causal)
            for (auto [br0, bc0] : o.tiles) {
                const int br = br0 > 0 ? br0 : DenseAttentionArgs{}.tile_rows;
                const int bc = bc0 > 0 ? bc0 : DenseAttentionArgs{}.tile_cols;
                const int n = o.n;
                Tensor3 Q(1, n, d), K(1, n, d), V(1, n, d), O(1, n, d), L(1, n, 1);
                fill(Q, 1), fill(K, 2), fill(V, 3);
                Tensor3 scratch;
                Tensor3 qs(1, br, d), s(1, br, bc), acc(1, br, d), stt(1, 4, br);
                double kt[5] = {}, et[7] = {}, bt[7] = {};
                openblas_set_num_threads(1);  // one OpenMP-less thread: OpenBLAS runs in the caller
                for (int i0 = 0; i0 < n; i0 += br) {
#if ATTNSCOPE_SIMD
                    kernel_tile(Q, K, V, O, L, i0, br, bc, causal != 0, scratch, kt);
#else
                    // (no tile kernel in this build: see kernel_tile)
#endif
                    eigen_tile(Q, K, V, i0, br, bc, causal != 0, qs, s, acc, stt, et, false);
                    eigen_tile(Q, K, V, i0, br, bc, causal != 0, qs, s, acc, stt, bt, true);
                }
                const double cells = causal ? 0.5 * n * (n + 1.0) : double(n) * n;
                std::printf("d=%d causal=%d tiles %dx%d\n", d, causal, br, bc);
                const char* kn[] = {"pack Qt, zero", "QK + mask + max", "exp + sum + factors", "PV (+ rescale O)",
                                    "write O, lse"};
                const int kp[] = {0, 1, 0, 1, 0};
                if (flash_tile::kAvailable) print_phases((std::string(kCpuIsaName) + " kernel").c_str(), kn, kt, 5, kp, cells, d);
                const char* en[] = {"scale Q, zero",   "QK (Eigen GEMM)", "row max + factors", "causal fills",
                                    "shift + exp",     "rescale acc, sum", "PV (Eigen GEMM)"};
                const int ep[] = {0, 1, 0, 0, 0, 0, 1};
                print_phases("Eigen path (before)", en, et, 7, ep, cells, d);
                en[1] = "QK (cblas_sgemm)", en[6] = "PV (cblas_sgemm)";
                print_phases("same, products by per-tile OpenBLAS", en, bt, 7, ep, cells, d);
                std::fflush(stdout);
            }
    // One thread's SGEMM in the same units, for scale.
    const int N = 1024;
    std::vector<float> A(size_t(N) * N, 0.5f), B(size_t(N) * N, 0.25f), C(size_t(N) * N);
    openblas_set_num_threads(1);
    Eigen::Map<Eigen::MatrixXf> eA(A.data(), N, N), eB(B.data(), N, N), eC(C.data(), N, N);
    for (int rep = 0; rep < 3; ++rep) {
        double c0 = thread_ns();
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, A.data(), N, B.data(), N, 0.0f, C.data(), N);
        const double c1 = thread_ns();
        Eigen::setNbThreads(1);
        eC.noalias() = eA * eB;
        const double c2 = thread_ns();
        std::printf("one thread, %d² sgemm: OpenBLAS %.1f GFLOP/s, Eigen %.1f GFLOP/s\n", N,
                    2.0 * N * N * double(N) / (c1 - c0), 2.0 * N * N * double(N) / (c2 - c1));
    }
}

/// The machine every figure of this run comes from.
void print_machine() {
    std::printf("machine: %s, %d threads; kernels compiled for %s (core/cpu_isa.h)\n", cpu_model_name().c_str(),
                omp_get_max_threads(), kCpuIsaName);
}

}  // namespace
}  // namespace attnscope

int main(int argc, char** argv) {
    attnscope::Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string k = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : "";
        if (k == "--profile") o.profile = true;
        else if (k == "--n") o.n = std::atoi(v), ++i;
        else if (k == "--heads") o.heads = std::atoi(v), ++i;
        else if (k == "--rounds") o.rounds = std::atoi(v), ++i;
        else if (k == "--roof") o.roof = std::atoi(v), ++i;
        else if (k == "--gap-ms") o.gap_ms = std::atoi(v), ++i;
        else if (k == "--d") o.dims = attnscope::int_list(v), ++i;
        else if (k == "--causal") o.causal = attnscope::int_list(v), ++i;
        else if (k == "--tiles") o.tiles = attnscope::tile_list(v), ++i;
        else if (k == "--pooled") o.pooled = std::atoi(v), ++i;
        else if (k == "--portable") o.kernels = attnscope::CpuKernels::Portable;
        else {
            std::fprintf(stderr, "unknown option %s (see the header of bench/paired/flash_paired.cpp)\n", k.c_str());
            return 2;
        }
    }
    attnscope::print_machine();
    if (o.profile) attnscope::profile(o);
    else if (o.pooled > 0) attnscope::pooled_overhead(o);
    else attnscope::paired(o);
    return 0;
}
