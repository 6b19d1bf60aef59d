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

#include "../backend/backend.h"
#include "../variants/variant.h"

namespace attnscope {

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

/// The outcome of a lesson's check: passed when every line passed.
struct CheckOutcome {
    std::string input;               // what the claims were measured on (the preset's input, sizes, seeds)
    std::vector<CheckLine> lines;
    std::vector<std::string> notes;  // context printed beside the lines (per-size values, timings)
    bool passed() const;
};

/// Where a check finds what it measures: the registered variants on one backend, unless a test has put a
/// deliberately broken stand-in in place of one (to prove the check can fail).
struct CheckContext {
    Backend& backend;
    std::map<std::string, std::shared_ptr<const Variant>> stand_ins;  // variant id → what runs instead
    /// The variant the check runs under `id`: the stand-in when there is one, else the registered variant.
    const Variant& variant(const std::string& id) const;
};

/// Runs the lesson's check; throws Error when the check id is unknown or cannot run here (e.g. the text model is
/// missing, with how to install it).
CheckOutcome run_lesson_check(const Lesson& lesson, CheckContext& context);
/// Runs it with the registered variants on `backend`.
CheckOutcome run_lesson_check(const Lesson& lesson, Backend& backend);

}  // namespace attnscope
