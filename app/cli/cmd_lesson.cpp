// `attnscope lesson [NAME] [--check]`: list lessons, print one, or verify its claim numerically
// (exit 1 when the claim does not hold, 2 for bad input).
#include <iomanip>
#include <iostream>

#include "app/cli/commands.h"
#include "core/backend/factory/make_backend.h"
#include "core/lessons/lessons.h"
#include "core/lessons/checks.h"
#include "core/lessons/preset.h"

namespace attnscope::cli {

namespace {

struct LessonOptionsCli {
    std::string name, backend = "auto";
    bool check = false;
};

int execute(const LessonOptionsCli& o) {
    if (o.name.empty()) {
        for (const Lesson& l : all_lessons()) std::cout << std::left << std::setw(20) << l.id << l.title << "\n";  // in order
        return 0;
    }
    const Lesson& lesson = find_lesson(o.name);
    std::cout << lesson.title << "\n\n" << lesson.explanation << "\nLook at: " << lesson.look_at << "\n";
    if (!o.check) return 0;
    auto backend = make_backend(o.backend);
    const CheckOutcome outcome = run_lesson_check(lesson, *backend);
    std::cout << "\nCheck (" << backend->name() << ") on " << outcome.input << ":\n";
    for (const std::string& note : outcome.notes) std::cout << "  note: " << note << "\n";
    // What the lesson's screen shows as badges (gui --lesson NAME), measured here on the same input.
    const std::vector<VariantRequest> views = preset_variants(lesson.preset);
    for (const ScreenValue& v : outcome.screen) {
        const bool view = v.view >= 0 && v.view < int(views.size());
        const std::string where = view ? "view " + std::to_string(v.view) + " (" + views[size_t(v.view)].id + ")" : "panel";
        std::cout << "  on screen: " << where << " " << v.metric << " = " << std::setprecision(6) << v.value << "\n";
    }
    for (const CheckLine& line : outcome.lines) {
        std::cout << "  [" << (line.passed ? "pass" : "FAIL") << "] " << line.claim << ": measured "
                  << std::setprecision(4) << line.measured << (line.at_least ? " (needs ≥ " : " (needs ≤ ") << line.threshold
                  << ")";
        if (!line.paper.empty()) std::cout << "; paper: " << line.paper;
        std::cout << "\n";
    }
    std::cout << (outcome.passed() ? "lesson check passed\n" : "lesson check FAILED\n");
    return outcome.passed() ? 0 : 1;
}

}  // namespace

void add_lesson_command(CLI::App& app, CommandAction& action) {
    auto o = std::make_shared<LessonOptionsCli>();
    auto* sub = app.add_subcommand("lesson", "List the lessons, print one, or verify its claim with --check");
    sub->add_option("name", o->name, "Lesson id (omit to list them)");
    sub->add_flag("--check", o->check, "Verify the lesson's claim numerically; exit 1 when it does not hold");
    sub->add_option("--backend", o->backend, kBackendChoices)->capture_default_str();
    sub->callback([&action, o] { action = [o] { return execute(*o); }; });
}

}  // namespace attnscope::cli
