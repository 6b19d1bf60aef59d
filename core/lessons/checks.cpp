#include "core/lessons/checks.h"

#include <sstream>

namespace attnscope {

namespace {

/// id → check; filled by the per-topic files through their adders (checks.h).
std::map<std::string, LessonCheck> build_checks() {
    std::map<std::string, LessonCheck> checks;
    add_sparse_lesson_checks(checks);
    add_lowrank_lesson_checks(checks);
    add_kernel_lesson_checks(checks);
    add_sink_lesson_checks(checks);
    add_ceiling_lesson_checks(checks);
    add_streaming_lesson_checks(checks);
    return checks;
}

}  // namespace

const LessonCheck* find_lesson_check(const std::string& id) {
    static const std::map<std::string, LessonCheck> checks = build_checks();
    auto it = checks.find(id);
    return it == checks.end() ? nullptr : &it->second;
}

CheckLine check_line(const std::string& claim, double measured, double limit, bool at_least, const std::string& paper) {
    CheckLine line;
    line.claim = claim, line.measured = measured, line.threshold = limit, line.at_least = at_least, line.paper = paper;
    line.passed = at_least ? measured >= limit : measured <= limit;  // NaN fails either way
    return line;
}

CheckOutcome run_lesson_check(const Lesson& lesson, CheckContext& context) {
    const LessonCheck* check = find_lesson_check(lesson.check);
    if (!check) throw Error("lesson " + lesson.id + " names an unknown check '" + lesson.check + "'");
    return (*check)(lesson, context);
}

CheckOutcome run_lesson_check(const Lesson& lesson, Backend& backend) {
    CheckContext context{backend, {}, {}, {}};
    return run_lesson_check(lesson, context);
}

}  // namespace attnscope
