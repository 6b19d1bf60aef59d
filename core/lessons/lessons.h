// attnscope — lessons: a preset session, a short explanation in the papers' notation, and a numeric check
// that measures the paper's claim on the very input the preset shows (assets/lessons/*.json, embedded at build
// time). Every check measures something the code could get wrong — a property of outputs on real data, or a
// time or memory ratio measured in the same process — and tests prove each can fail by putting a deliberately
// broken variant in its context.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/backend/interface/backend.h"
#include "core/variants/variant.h"

namespace attnscope {

/// One feature a lesson tells the reader to look at, as data: the GUI outlines it in the views it names and zooms
/// to it with one click; tests check it is visible.
struct LookAtPoint {
    enum class Kind { Keys, Rows, Diagonal, Block, Head };
    std::string label;               // what the lesson calls it ("sink columns (keys 0–3)")
    Kind kind = Kind::Keys;
    int first = 0, last = 0;         // keys, rows or diagonal offsets i − j, inclusive (Head: the head, twice)
    int rows_first = 0, rows_last = 0;  // Block: its rows; its keys are first … last
    std::vector<std::string> views;  // variant ids of the views it is outlined in; empty: every view
    int on_head = -1;                // outlined only while this head is shown (a head-specific pattern); -1: any
};

/// One lesson as written in assets/lessons/<id>.json.
struct Lesson {
    std::string id;               // e.g. "low-rank"
    int order = 0;                // position in the Lessons menu and `attnscope lesson` (1, 2, …)
    std::string title;            // e.g. "1. Attention is low rank (Linformer §3)"
    std::string explanation;      // a few sentences in the paper's notation, and what the check measures
    std::string look_at;          // what to look at on screen
    nlohmann::json preset;        // session preset: input, variants with params, panels to open, view toggles;
                                  // the check's main claims run on exactly this input
    std::string check;            // id of the numeric check
    nlohmann::json check_params;  // thresholds and sizes of the check
    std::vector<LookAtPoint> points;  // the features "look_at" names ("points" in the file)
    /// A metric the screen compares: "badges" holds ids ("mass_recall": every view that has it) or
    /// {"metric": id, "views": [variant ids]}. Compact badges always keep them.
    struct BadgeRule {
        std::string metric;
        std::vector<std::string> views;  // empty: every view
    };
    std::vector<BadgeRule> badges;
    /// The metric ids the lesson compares in a view of variant `id`.
    std::vector<std::string> badges_for(const std::string& id) const;
    /// Whether any rule names `metric`.
    bool compares(const std::string& metric) const;
};

/// Reads one lesson file's JSON; throws Error saying which key is missing or of the wrong type.
Lesson parse_lesson(const std::string& json_text);
/// Every lesson, in their own order (the "order" field); throws Error when an embedded file is malformed.
const std::vector<Lesson>& all_lessons();
/// The lesson with this id; throws Error listing the ids when there is none.
const Lesson& find_lesson(const std::string& id);

/// One measured claim of a check.
struct CheckLine {
    std::string claim;     // what is claimed, e.g. "cumulative σ at k = n/4, layer 3"
    double measured = 0;   // the measured value
    double threshold = 0;  // the limit it is held to
    bool at_least = true;  // passes when measured ≥ threshold (else when measured ≤ threshold)
    std::string paper;     // the paper's own figure for the same claim ("Table 3: 3.2×"), empty when it has none
    bool passed = false;   // whether this claim holds
};

/// A value the check measured on the lesson's own input that the lesson's screen shows too: a badge of one preset
/// view (a test compares the two).
struct ScreenValue {
    int view = 0;         // index into the preset's variants
    std::string metric;   // badge id ("mass_recall", "rank_ceiling", "rel_err_model", "memory", …)
    double value = 0;
};

/// The outcome of a lesson's check: passed when every line passed.
struct CheckOutcome {
    std::string input;               // what the claims were measured on (the preset's input, sizes, seeds)
    std::vector<CheckLine> lines;
    std::vector<std::string> notes;  // context printed beside the lines (per-size values, timings)
    std::vector<ScreenValue> screen; // the measurements its screen's badges show
    bool passed() const;
};

/// Where a check finds what it measures: the registered variants on one backend, unless a test has put a
/// deliberately broken stand-in in place of one (to prove the check can fail).
struct CheckContext {
    Backend& backend;
    std::map<std::string, std::shared_ptr<const Variant>> stand_ins;  // variant id → what runs instead
    std::function<bool()> cancelled;     // polled before each run: true stops the check with CheckCancelled
    std::function<void()> between_runs;  // called before each untimed run (the GUI computes a pending edit there)
    /// The variant the check runs under `id`: the stand-in when there is one, else the registered variant.
    const Variant& variant(const std::string& id) const;
};

/// Thrown by a check whose context was cancelled (a GUI lesson closed or changed while its check ran).
struct CheckCancelled : Error {
    CheckCancelled() : Error("the check was cancelled") {}
};

}  // namespace attnscope
