// attnscope — the numeric checks behind the lessons, by id. Each measures one paper claim on the lesson's own
// input (and, for scaling claims, on the sizes its parameters name) and reports every measured value beside its
// threshold and the paper's figure.
#pragma once
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/lessons/lessons.h"

namespace attnscope {

/// A check: the lesson (preset input, thresholds in check_params) and the context it runs in.
using LessonCheck = std::function<CheckOutcome(const Lesson& lesson, CheckContext& context)>;

/// Runs the lesson's check; throws Error when the check id is unknown or cannot run here (e.g. the text model is
/// missing, with how to install it).
CheckOutcome run_lesson_check(const Lesson& lesson, CheckContext& context);
/// Runs it with the registered variants on `backend`.
CheckOutcome run_lesson_check(const Lesson& lesson, Backend& backend);

/// The check registered under `id`, or nullptr.
const LessonCheck* find_lesson_check(const std::string& id);

/// Adders of the per-topic check files.
void add_sparse_lesson_checks(std::map<std::string, LessonCheck>& checks);
void add_lowrank_lesson_checks(std::map<std::string, LessonCheck>& checks);
void add_kernel_lesson_checks(std::map<std::string, LessonCheck>& checks);
void add_sink_lesson_checks(std::map<std::string, LessonCheck>& checks);
void add_ceiling_lesson_checks(std::map<std::string, LessonCheck>& checks);
void add_streaming_lesson_checks(std::map<std::string, LessonCheck>& checks);

/// A claim that passes when measured ≥ limit (`at_least`) or ≤ limit, with the paper's figure when it has one.
CheckLine check_line(const std::string& claim, double measured, double limit, bool at_least,
                     const std::string& paper = "");

}  // namespace attnscope
