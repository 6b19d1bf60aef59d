// attnscope — typed reads of hand-editable JSON (sessions, lesson presets): a number where a whole number belongs,
// or one beyond its type, is an Error naming the key, never a silent wrap or an undefined float-to-int conversion.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.h"

namespace attnscope {

/// j[key] as an integer in [lo, hi], or `fallback` when absent; throws Error naming `where` and the key otherwise.
inline int64_t json_integer(const nlohmann::json& j, const char* key, int64_t fallback, int64_t lo, int64_t hi,
                            const std::string& where) {
    if (!j.is_object() || !j.contains(key)) return fallback;
    const nlohmann::json& v = j.at(key);
    const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (v.is_number_unsigned()) {  // a parsed non-negative number: the lower bound applies to it too
        const uint64_t u = v.get<uint64_t>();
        if (hi >= 0 && u <= uint64_t(hi) && (lo <= 0 || u >= uint64_t(lo))) return int64_t(u);
    }
    if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() >= lo && v.get<int64_t>() <= hi)
        return v.get<int64_t>();
    throw Error(where + ": '" + key + "' is " + v.dump() + "; it must be a whole number in " + range);
}

/// j[key] as an int in [lo, hi] (see json_integer).
inline int json_int(const nlohmann::json& j, const char* key, int fallback, int lo, int hi, const std::string& where) {
    return static_cast<int>(json_integer(j, key, fallback, lo, hi, where));
}

/// j[key] as a finite number in [lo, hi], or `fallback` when absent; throws Error naming `where` and the key otherwise.
inline double json_number(const nlohmann::json& j, const char* key, double fallback, double lo, double hi,
                          const std::string& where) {
    if (!j.is_object() || !j.contains(key)) return fallback;
    const nlohmann::json& v = j.at(key);
    if (v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= lo && v.get<double>() <= hi)
        return v.get<double>();
    throw Error(where + ": '" + key + "' is " + v.dump() + "; it must be a number in [" + std::to_string(lo) + ", " +
                std::to_string(hi) + "]");
}

/// j[key] as true/false, or `fallback` when absent; throws Error naming `where`, the key and the expected type.
inline bool json_bool(const nlohmann::json& j, const char* key, bool fallback, const std::string& where) {
    if (!j.is_object() || !j.contains(key)) return fallback;
    const nlohmann::json& v = j.at(key);
    if (v.is_boolean()) return v.get<bool>();
    throw Error(where + ": '" + key + "' is " + v.dump() + "; it must be true or false");
}

/// j[key] as a string, or `fallback` when absent; throws Error naming `where`, the key and the expected type.
inline std::string json_string(const nlohmann::json& j, const char* key, const std::string& fallback,
                               const std::string& where) {
    if (!j.is_object() || !j.contains(key)) return fallback;
    const nlohmann::json& v = j.at(key);
    if (v.is_string()) return v.get<std::string>();
    throw Error(where + ": '" + key + "' is " + v.dump() + "; it must be a string in quotes");
}

}  // namespace attnscope
