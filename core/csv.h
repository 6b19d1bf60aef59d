// attnscope — CSV text (RFC 4180): the one field quoting and number format every CSV file and the clipboard's
// "Copy metrics CSV" use, so a spreadsheet reads every export the same way.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace attnscope {

/// One field: quoted (inner quotes doubled) when it holds a comma, quote, line break or an edge space, else as is.
std::string csv_field(const std::string& text);

/// One record: the fields (each through csv_field) joined by commas, ending in '\n'.
std::string csv_record(const std::vector<std::string>& fields);

/// A number with 9 significant digits ("inf", "-inf", "nan" as the stream writes them); "" when absent.
std::string csv_number(const std::optional<double>& value);

}  // namespace attnscope
