#include "core/lessons/lessons.h"

#include "core/json_fields.h"
#include "attnscope_embedded_lessons.h"

#include <algorithm>
#include <tuple>

#include "core/variants/registry.h"

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

/// An inclusive range [a, b] of non-negative integers under `key` of point `p`.
std::pair<int, int> range_of(const nlohmann::json& p, const char* key, const std::string& label) {
    const nlohmann::json& r = p.at(key);
    if (!r.is_array() || r.size() != 2 || !r[0].is_number_integer() || !r[1].is_number_integer() ||
        r[0].get<int>() > r[1].get<int>())
        throw Error("point '" + label + "': \"" + key + "\" must be [first, last] with first ≤ last, got " + r.dump());
    return {r[0].get<int>(), r[1].get<int>()};
}

LookAtPoint parse_point(const nlohmann::json& p) {
    LookAtPoint pt;
    pt.label = p.at("label").get<std::string>();
    int kinds = 0;
    if (p.contains("keys")) {
        pt.kind = LookAtPoint::Kind::Keys, ++kinds;
        std::tie(pt.first, pt.last) = range_of(p, "keys", pt.label);
    }
    if (p.contains("rows")) {
        pt.kind = LookAtPoint::Kind::Rows, ++kinds;
        std::tie(pt.first, pt.last) = range_of(p, "rows", pt.label);
    }
    if (p.contains("diagonal")) {
        pt.kind = LookAtPoint::Kind::Diagonal, ++kinds;
        const nlohmann::json& d = p.at("diagonal");
        if (!d.is_array() || d.size() != 2 || !d[0].is_number_integer() || !d[1].is_number_integer() ||
            d[0].get<int>() > d[1].get<int>())
            throw Error("point '" + pt.label + "': \"diagonal\" must be [first, last] offsets i − j, got " + d.dump());
        pt.first = d[0], pt.last = d[1];
    }
    if (p.contains("block")) {
        pt.kind = LookAtPoint::Kind::Block, ++kinds;
        std::tie(pt.rows_first, pt.rows_last) = range_of(p.at("block"), "rows", pt.label);
        std::tie(pt.first, pt.last) = range_of(p.at("block"), "keys", pt.label);
    }
    if (p.contains("head")) {
        pt.kind = LookAtPoint::Kind::Head, ++kinds;
        pt.first = pt.last = json_int(p, "head", 0, 0, 1023, "point '" + pt.label + "'");
    }
    if (kinds != 1)
        throw Error("point '" + pt.label + "' must name exactly one of \"keys\", \"rows\", \"diagonal\", \"block\", \"head\"");
    for (const auto& v : p.value("views", nlohmann::json::array())) pt.views.push_back(v.get<std::string>());
    pt.on_head = json_int(p, "on_head", -1, -1, 1023, "point '" + pt.label + "'");
    return pt;
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
        for (const auto& p : j.value("points", nlohmann::json::array())) l.points.push_back(parse_point(p));
        for (const auto& b : j.value("badges", nlohmann::json::array())) {
            if (b.is_string()) {
                l.badges.push_back({b.get<std::string>(), {}});
                continue;
            }
            Lesson::BadgeRule rule{b.at("metric").get<std::string>(), {}};
            for (const auto& v : b.value("views", nlohmann::json::array())) rule.views.push_back(v.get<std::string>());
            l.badges.push_back(std::move(rule));
        }
        // Every view a point names must be one the preset shows.
        for (const LookAtPoint& p : l.points)
            for (const std::string& id : p.views) {
                bool shown = false;
                for (const auto& v : l.preset.value("variants", nlohmann::json::array())) shown = shown || v.value("id", "") == id;
                if (!shown) throw Error("point '" + p.label + "' names view '" + id + "', which the preset does not show");
            }
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

std::vector<std::string> Lesson::badges_for(const std::string& id) const {
    std::vector<std::string> out;
    for (const BadgeRule& b : badges)
        if (b.views.empty() || std::find(b.views.begin(), b.views.end(), id) != b.views.end()) out.push_back(b.metric);
    return out;
}

bool Lesson::compares(const std::string& metric) const {
    return std::any_of(badges.begin(), badges.end(), [&](const BadgeRule& b) { return b.metric == metric; });
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

}  // namespace attnscope
