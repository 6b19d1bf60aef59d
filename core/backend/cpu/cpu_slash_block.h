// attnscope — vslash's diagonal (slash) cells on the CPU, in the build's vector ISA (core/backend/cpu/simd/vec.h): a
// block of query rows against one vector's worth of diagonals (16 on AVX-512, 8 on AVX2).
// A diagonal gives each query its own key, so no key row serves two queries of a tile: there is no product to
// register-block, only dot products and multiply-adds at one load per FMA. One vector lane per diagonal: a row's
// dot products are reduced together by one transpose-add (three shuffle levels instead of a horizontal sum each), its
// softmax step is lane-wise with the exact-zero exp2 of masked lanes, and its values are added with each weight
// broadcast into an output row held in registers, split over two accumulator sets so the FMA chains overlap (one
// chain per output vector left the value loop waiting on FMA latency). For d, dv ∈ {32, 64, 96, 128} the widths
// are compile-time; other widths take a masked loop. Without a vector ISA kAvailable is false and
// cpu_vertical_slash.cpp runs its Eigen path, which CpuKernels::Portable also selects.
#pragma once
#include "core/cpu_isa.h"
#include "core/backend/interface/score_mod.h"

namespace attnscope::slash_block {

/// True when this build has the vector row kernel (compile-time: the build's -march decides).
constexpr bool kAvailable = kSimdKernels;

/// Diagonals per call: one vector of lanes, one diagonal each.
constexpr int kDiagonals = kSimdLanes;

/// A block of consecutive query rows against up to kDiagonals kept diagonals (none of it owned).
struct Block {
    int i0 = 0, rows = 0;        // queries [i0, i0 + rows)
    const float* q = nullptr;    // (rows, d) scale·Q
    float* acc = nullptr;        // (rows, dv) Σ exp(s − m)·v over the keys folded so far
    float* m = nullptr;          // (rows) running max of each row's scores
    float* l = nullptr;          // (rows) running Σ exp(s − m)
    const int* offs = nullptr;   // (count) ascending diagonals o: cell (i, i − o)
    int count = 0;               // ≤ kDiagonals
};

/// Folds every cell (i, i − o) of the block whose key i − o ≥ 0 is not a kept column (is_column[j] ≠ 0:
/// the vertical pass scored it) into its row's running softmax. k and v are one head's rows (widths d and dv); mod
/// is applied to each score before the softmax (h: head). scratch holds 2·rows·kDiagonals floats and ints.
void fold(const Block& b, const float* k, const float* v, int d, int dv, const float* is_column, const ScoreMod& mod,
          int h, float* scratch);

}  // namespace attnscope::slash_block
