// attnscope — why a cell (query i, key j) is allowed, and a whole mask of such reasons: the colour and tooltip of
// every mask cell, and what reachability and metrics read.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace attnscope {

/// Reason codes stored per cell in a mask (0 = not allowed). Order fixes the mask colour table.
enum class Reason : uint8_t {
    None = 0,     // not attended
    Dense,        // dense attention: every (causal) cell
    Local,        // Sparse Transformer head A: i − j < l, or the same block for `fixed`
    Stride,       // Sparse Transformer head B: (i − j) mod l = 0
    Summary,      // `fixed` head B: summary columns (last c of each block)
    Window,       // Longformer / BigBird sliding window
    Dilated,      // Longformer dilated window cell
    Global,       // global token row or column
    Random,       // BigBird random key block
    Segment,      // Transformer-XL: inside the current segment
    Memory,       // Transformer-XL: cached memory of the previous segment
    Bucket,       // Reformer: same chunk / look-back chunk after sorting by bucket
    Sink,         // StreamingLLM: one of the first s positions every query keeps
    TopK,         // the top-k oracle: one of the query's k largest exact scores
    Selected,     // block selection: a key block the query's gate chose
    Vertical,     // vertical-slash: a key column the last queries' mass chose
    Slash,        // vertical-slash: a diagonal i − j the last queries' mass chose
    Count         // number of reasons (not a reason)
};

/// Lower-case name of a reason, e.g. "window".
const char* reason_name(Reason r);

/// RGB colour in [0, 1] of a reason in mask views: distinct hues (Okabe–Ito-like) that stay apart on a projected
/// slide; Dense is neutral and None is the dimmed colour of a dark theme. The GUI and figures share it.
std::array<float, 3> reason_rgb(Reason r);

/// How much a reason must stay visible when one pixel covers cells of several reasons: the pixel shows the most
/// salient one. Single columns and rows (sink, global, vertical) outrank the bands that fill a row (window,
/// local); 0 for None, so any allowed cell outranks "not allowed".
int reason_salience(Reason r);

/// The reason of a and b (codes) that a pooled pixel shows: the more salient; codes past Reason::Count lose.
uint8_t most_salient(uint8_t a, uint8_t b);

/// A sentence for a reason code: why cell (i, j) is allowed (the hover text and the legend's tooltips).
const char* reason_sentence(Reason r);

/// Reason codes of every cell, per head: (H, n, n) bytes, 0 = not allowed.
struct ReasonMask {
    int heads = 0, n = 0;
    std::vector<uint8_t> cells;  // (H, n, n) row-major
    Reason at(int h, int i, int j) const {
        return static_cast<Reason>(cells[(static_cast<size_t>(h) * n + i) * n + j]);
    }
};

}  // namespace attnscope
