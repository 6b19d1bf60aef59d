// attnscope — the numeric checks behind the lessons, by id. Each reproduces one paper claim on real or
// synthetic data and reports every measured value beside its threshold.
#pragma once
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "lessons.h"

namespace attnscope {

/// A check: thresholds/sizes from the lesson file, the backend to run on; returns measured lines.
using LessonCheck = std::function<CheckOutcome(const nlohmann::json& params, Backend& backend)>;

/// The check registered under `id`, or nullptr.
const LessonCheck* find_lesson_check(const std::string& id);

/// Adders of the per-topic check files.
void add_sparse_lesson_checks(std::map<std::string, LessonCheck>& checks);
void add_lowrank_lesson_checks(std::map<std::string, LessonCheck>& checks);
void add_kernel_lesson_checks(std::map<std::string, LessonCheck>& checks);

/// Helper for checks: a line that passes when measured ≤ limit (or ≥ when `at_least`).
CheckLine check_line(const std::string& claim, double measured, double limit, bool at_least);

}  // namespace attnscope
