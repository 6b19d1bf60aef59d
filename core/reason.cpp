#include "core/reason.h"

namespace attnscope {

namespace {

/// Everything the views say about a reason, in the order of the enum (one row per reason).
struct ReasonRow {
    const char* name;
    std::array<float, 3> rgb;
    int salience;
    const char* sentence;
};

// Salience: bands that fill most of a row (window, local, segment, bucket) lowest; thin structures (strides,
// summaries, dilation, chosen blocks) above them; single columns and rows (global, sink, vertical, top-k) highest.
constexpr ReasonRow kReasons[] = {
    {"none", {0.10f, 0.10f, 0.12f}, 0, "not allowed: outside the pattern"},
    {"dense", {0.55f, 0.75f, 0.85f}, 1, "dense: every key is scored"},
    {"local", {0.00f, 0.62f, 0.45f}, 3, "local: inside the local window / same block"},
    {"stride", {0.90f, 0.62f, 0.00f}, 8, "stride: (i − j) mod l = 0"},
    {"summary", {0.80f, 0.47f, 0.65f}, 9, "summary: one of the last c columns of a block"},
    {"window", {0.34f, 0.71f, 0.91f}, 2, "window: inside the sliding window"},
    {"dilated", {0.00f, 0.45f, 0.70f}, 7, "dilated: on the dilated window"},
    {"global", {0.84f, 0.15f, 0.16f}, 15, "global: row or column of a global token"},
    {"random", {0.94f, 0.89f, 0.26f}, 11, "random: a random key block of this query block"},
    {"segment", {0.40f, 0.65f, 0.12f}, 4, "segment: inside the current segment"},
    {"memory", {0.58f, 0.40f, 0.74f}, 6, "memory: cached memory of the previous segment"},
    {"bucket", {0.84f, 0.37f, 0.00f}, 5, "bucket: same LSH chunk or its look-back chunk"},
    {"sink", {0.95f, 0.35f, 0.75f}, 16, "sink: one of the first s positions every query keeps (StreamingLLM)"},
    {"top-k", {0.20f, 0.80f, 0.80f}, 13, "top-k: one of this query's k largest exact scores (the oracle)"},
    {"selected", {0.55f, 0.85f, 0.35f}, 10, "selected: a key block the block gate chose for this query"},
    {"vertical", {0.95f, 0.55f, 0.20f}, 14, "vertical: a key column the last queries' probabilities chose"},
    {"slash", {0.45f, 0.55f, 0.95f}, 12, "slash: a diagonal i − j the last queries' probabilities chose"},
};
static_assert(sizeof kReasons / sizeof kReasons[0] == static_cast<size_t>(Reason::Count),
              "one row of kReasons per Reason");

const ReasonRow* row_of(Reason r) {
    const auto k = static_cast<size_t>(r);
    return k < static_cast<size_t>(Reason::Count) ? &kReasons[k] : nullptr;
}

}  // namespace

const char* reason_name(Reason r) { return row_of(r) ? row_of(r)->name : "?"; }

std::array<float, 3> reason_rgb(Reason r) { return row_of(r) ? row_of(r)->rgb : std::array<float, 3>{1, 1, 1}; }

int reason_salience(Reason r) { return row_of(r) ? row_of(r)->salience : 0; }

const char* reason_sentence(Reason r) { return row_of(r) ? row_of(r)->sentence : "?"; }

uint8_t most_salient(uint8_t a, uint8_t b) {
    const int limit = static_cast<int>(Reason::Count);
    const int sa = a < limit ? reason_salience(static_cast<Reason>(a)) : -1;
    const int sb = b < limit ? reason_salience(static_cast<Reason>(b)) : -1;
    return sb > sa ? b : a;
}

}  // namespace attnscope
