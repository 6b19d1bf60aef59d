// attnscope — lessons: a preset session, a short explanation in the papers' notation, and a numeric check
// that reproduces the paper's claim (assets/lessons/*.json, embedded at build time).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../backend/backend.h"

namespace attnscope {

/// One lesson as written in assets/lessons/<id>.json.
struct Lesson {
    std::string id;            // e.g. "low-rank"
    std::string title;         // e.g. "Attention is low rank (Linformer §3)"
    std::string explanation;   // a few sentences in the paper's notation
    std::string look_at;       // what to look at on screen
    nlohmann::json preset;     // session preset: input, variants with params, panels to open
    std::string check;         // id of the numeric check
    nlohmann::json check_params;  // thresholds and sizes of the check
};

/// Every lesson, in file-name order; throws Error when an embedded file is malformed (a build defect).
const std::vector<Lesson>& all_lessons();
/// The lesson with this id; throws Error listing the ids when there is none.
const Lesson& find_lesson(const std::string& id);

/// One measured claim of a check.
struct CheckLine {
    std::string claim;    // what is claimed, with its threshold, e.g. "cumulative σ reaches 0.9 by index < n/4"
    double measured = 0;  // the measured value
    bool passed = false;  // whether this claim holds
};

/// The outcome of a lesson's check: passed when every line passed.
struct CheckOutcome {
    std::vector<CheckLine> lines;
    std::vector<std::string> notes;  // context printed beside the lines (sizes, timings)
    bool passed() const;
};

/// Runs the lesson's check on `backend`; throws Error when the check id is unknown or cannot run here
/// (e.g. the text model is missing, with how to install it).
CheckOutcome run_lesson_check(const Lesson& lesson, Backend& backend);

}  // namespace attnscope
