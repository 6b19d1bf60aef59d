// attnscope — one step of the online softmax over a score tile, on the CPU: shared by dense (flash) and
// block-sparse attention so both fold tiles into their running rows the same way (online_softmax.h math).
#pragma once
#include <cmath>

#include "core/backend/interface/score_mod.h"
#include "core/tensor.h"
#include "core/backend/shared/online_softmax.h"

namespace attnscope {

/// Per-row running state of a query tile (views into per-thread scratch).
struct OnlineTileRows {
    Eigen::Map<Eigen::VectorXf> run_max;  // (rows) running max m
    Eigen::Map<Eigen::VectorXf> run_sum;  // (rows) running Σ exp(s − m)
    Eigen::Map<Eigen::VectorXf> rescale;  // (rows) factor for what was accumulated before this tile
    Eigen::Map<Eigen::VectorXf> shift;    // (rows) what this tile's scores are shifted by before exp
};

/// Applies `mod` to columns [c_begin, c_end) of score tile s of head h: cell (r, c) is query i0 + r and key
/// j_begin + (c − c_begin). Call it before masking: soft-capping would lift a −inf cell to −c.
inline void apply_score_mod_columns(MatView s, const ScoreMod& mod, int h, int i0, int c_begin, int c_end, int j_begin) {
    if (mod.kind == ScoreModKind::None || c_begin >= c_end) return;
    auto cols = s.middleCols(c_begin, c_end - c_begin);
    if (mod.kind == ScoreModKind::Softcap) {
        cols.array() = mod.cap * (cols.array() / mod.cap).tanh();
        return;
    }
    const float slope = alibi_slope(h, mod.heads);
    for (int r = 0; r < cols.rows(); ++r)
        for (int c = 0; c < cols.cols(); ++c) cols(r, c) -= slope * std::fabs(float(i0 + r - (j_begin + c)));
}

/// Updates the running maxima with score tile s (rows, cols; masked cells −inf) and replaces s by
/// exp(s − shift). The caller then zeroes masked cells (vectorised exp maps −inf to a tiny positive number).
inline void online_tile_exp(MatView s, OnlineTileRows& st) {
    st.shift = s.rowwise().maxCoeff();
    for (int r = 0; r < s.rows(); ++r) {
        const OnlineSoftmaxRow row{st.run_max[r], st.run_sum[r]};
        const float new_max = online_softmax_new_max(row, st.shift[r]);
        st.rescale[r] = online_softmax_rescale(row.m, new_max);
        // A row with nothing allowed yet keeps shift 0 so exp(−inf − 0) = 0, not NaN.
        st.shift[r] = new_max == -INFINITY ? 0.0f : new_max;
        st.run_max[r] = new_max;
    }
    s.array().colwise() -= st.shift.array();
    s.array() = s.array().exp();
}

/// Folds the exponentiated tile p (rows, cols) into the running sums and rescales the accumulator acc (rows, dv) to
/// the new maxima; the caller then adds p's weighted values (a tile whose values are not one matrix, e.g. diagonals).
inline void online_tile_rescale(MatView p, MatView acc, OnlineTileRows& st) {
    st.run_sum.array() = st.run_sum.array() * st.rescale.array() + p.rowwise().sum().array();
    acc.array().colwise() *= st.rescale.array();
}

/// Folds the exponentiated tile p (rows, cols) into the running sums and the accumulator acc (rows, dv):
/// acc = rescale·acc + p·v, with v the tile's values (cols, dv).
template <class Values>
inline void online_tile_accumulate(MatView p, const Values& v, MatView acc, OnlineTileRows& st) {
    online_tile_rescale(p, acc, st);
    acc.noalias() += p * v;
}

}  // namespace attnscope
