#include "checks.h"

#include <sstream>

namespace attnscope {

namespace {

/// id → check; filled by the per-topic files through their adders (checks.h).
std::map<std::string, LessonCheck> build_checks() {
    std::map<std::string, LessonCheck> checks;
    add_sparse_lesson_checks(checks);
    add_lowrank_lesson_checks(checks);
    add_kernel_lesson_checks(checks);
    return checks;
}

}  // namespace

const LessonCheck* find_lesson_check(const std::string& id) {
    static const std::map<std::string, LessonCheck> checks = build_checks();
    auto it = checks.find(id);
    return it == checks.end() ? nullptr : &it->second;
}

CheckLine check_line(const std::string& claim, double measured, double limit, bool at_least) {
    std::ostringstream os;
    os << claim << (at_least ? " (≥ " : " (≤ ") << limit << ")";
    return {os.str(), measured, at_least ? measured >= limit : measured <= limit};
}

}  // namespace attnscope
