#include "lessons.h"

#include "../json_fields.h"
#include "attnscope_embedded_lessons.h"
#include "checks.h"

#include <algorithm>

#include "../variants/registry.h"

namespace attnscope {

namespace {

std::string text_of(const nlohmann::json& j, const char* key) {
    if (!j.contains(key)) return {};
    const nlohmann::json& v = j.at(key);
    if (v.is_array()) {  // long texts are written as arrays of lines for readable JSON
        std::string s;
        for (const auto& line : v) s += line.get<std::string>() + "\n";
        return s;
    }
    return v.get<std::string>();
}

}  // namespace

Lesson parse_lesson(const std::string& json_text) {
    try {
        const nlohmann::json j = nlohmann::json::parse(json_text);
        Lesson l;
        l.id = j.at("id").get<std::string>();
        if (!j.contains("order")) throw Error("its \"order\" is missing");
        l.order = json_int(j, "order", 0, 0, 1000, "the lesson");
        l.title = j.at("title").get<std::string>();
        l.explanation = text_of(j, "explanation");
        l.look_at = text_of(j, "look_at");
        l.preset = j.value("preset", nlohmann::json::object());
        if (!l.preset.is_object()) throw Error("its \"preset\" is not an object");
        l.check = j.at("check").at("id").get<std::string>();
        l.check_params = j.at("check");
        return l;
    } catch (const nlohmann::json::exception& e) {
        throw Error(e.what());
    }
}

const std::vector<Lesson>& all_lessons() {
    static const std::vector<Lesson> lessons = [] {
        std::vector<Lesson> out;
        for (std::size_t k = 0; k < assets::kLessons_count; ++k) {
            try {
                out.push_back(parse_lesson(assets::kLessons[k]));
            } catch (const Error& e) {
                throw Error("lesson file #" + std::to_string(k) + " in assets/lessons is malformed: " + e.what());
            }
        }
        std::stable_sort(out.begin(), out.end(), [](const Lesson& a, const Lesson& b) { return a.order < b.order; });
        return out;
    }();
    return lessons;
}

const Lesson& find_lesson(const std::string& id) {
    std::string known;
    for (const Lesson& l : all_lessons()) {
        if (l.id == id) return l;
        known += (known.empty() ? "" : ", ") + l.id;
    }
    throw Error("unknown lesson '" + id + "'; lessons: " + known);
}

bool CheckOutcome::passed() const {
    if (lines.empty()) return false;  // a check that measured nothing has shown nothing
    for (const CheckLine& l : lines)
        if (!l.passed) return false;
    return true;
}

const Variant& CheckContext::variant(const std::string& id) const {
    const auto it = stand_ins.find(id);
    return it != stand_ins.end() ? *it->second : find_variant(id);
}

CheckOutcome run_lesson_check(const Lesson& lesson, CheckContext& context) {
    const LessonCheck* check = find_lesson_check(lesson.check);
    if (!check) throw Error("lesson " + lesson.id + " names an unknown check '" + lesson.check + "'");
    return (*check)(lesson, context);
}

CheckOutcome run_lesson_check(const Lesson& lesson, Backend& backend) {
    CheckContext context{backend, {}};
    return run_lesson_check(lesson, context);
}

}  // namespace attnscope
