#include "core/csv.h"

#include "core/format.h"

namespace attnscope {

std::string csv_field(const std::string& text) {
    const bool edge_space = !text.empty() && (text.front() == ' ' || text.back() == ' ');
    if (text.find_first_of(",\"\r\n") == std::string::npos && !edge_space) return text;
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string csv_record(const std::vector<std::string>& fields) {
    std::string out;
    for (size_t k = 0; k < fields.size(); ++k) out += (k ? "," : "") + csv_field(fields[k]);
    return out + "\n";
}

std::string csv_number(const std::optional<double>& value) {
    // 9 digits: a float32 value read back is the same float (the matrices and metrics are float32 or doubles of them).
    return value ? format_significant(*value, 9) : std::string();
}

}  // namespace attnscope
