#include "core/data/npy.h"

#include <cctype>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "core/data/mapped_file.h"

namespace attnscope {

namespace {

/// The value text after 'key': in the header dict (up to the next top-level comma or brace).
std::string dict_value(const std::string& header, const std::string& key, const std::string& where) {
    size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) at = header.find("\"" + key + "\"");
    if (at == std::string::npos) throw Error(where + ": header has no '" + key + "' entry; the file is corrupt");
    at = header.find(':', at);
    if (at == std::string::npos) throw Error(where + ": header entry '" + key + "' has no value; the file is corrupt");
    ++at;
    while (at < header.size() && std::isspace(static_cast<unsigned char>(header[at]))) ++at;
    size_t end = at;
    if (end < header.size() && header[end] == '(') {
        end = header.find(')', end);
        if (end == std::string::npos) throw Error(where + ": header shape is not closed; the file is corrupt");
        return header.substr(at, end - at + 1);
    }
    while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
    std::string v = header.substr(at, end - at);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
    return v;
}

}  // namespace

std::string NpyArray::shape_string() const {
    std::string s = "(";
    for (size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + ")";
}

NpyArray read_npy(const std::string& path) {
    const MappedFile file(path);
    const std::string where = ".npy file '" + path + "'";
    const uint8_t* p = file.data();
    const size_t size = file.size();
    if (size < 10 || std::memcmp(p, "\x93NUMPY", 6) != 0)
        throw Error(where + " does not start with the .npy magic bytes; save it with numpy.save");
    const int major = p[6];
    size_t header_len = 0, header_start = 0;
    if (major == 1) {
        header_len = static_cast<size_t>(p[8] | (p[9] << 8));
        header_start = 10;
    } else if (major == 2 || major == 3) {
        if (size < 12) throw Error(where + " is truncated inside its preamble");
        header_len = static_cast<size_t>(p[8]) | (static_cast<size_t>(p[9]) << 8) | (static_cast<size_t>(p[10]) << 16) |
                     (static_cast<size_t>(p[11]) << 24);
        header_start = 12;
    } else {
        throw Error(where + " has .npy format version " + std::to_string(major) + "; versions 1 to 3 are supported");
    }
    if (header_len > size - header_start)
        throw Error(where + " is truncated: the header declares " + std::to_string(header_len) + " bytes but only " +
                    std::to_string(size - header_start) + " follow");
    const std::string header(reinterpret_cast<const char*>(p) + header_start, header_len);

    NpyArray a;
    std::string descr = dict_value(header, "descr", where);
    if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"')) descr = descr.substr(1, descr.size() - 2);
    a.dtype = descr;
    int item = 0;
    if (descr == "<f4") item = 4;
    else if (descr == "<f8") item = 8;
    else
        throw Error(where + " has dtype '" + descr +
                    "'; attnscope reads little-endian float32 ('<f4') or float64 ('<f8'): save it with "
                    "array.astype('<f4')");
    const std::string fortran = dict_value(header, "fortran_order", where);
    if (fortran == "True")
        throw Error(where + " is in Fortran (column-major) order; save it in C order (numpy.ascontiguousarray)");
    if (fortran != "False") throw Error(where + ": fortran_order is '" + fortran + "'; the file is corrupt");

    const std::string shape = dict_value(header, "shape", where);
    if (shape.empty() || shape.front() != '(') throw Error(where + ": shape is not a tuple; the file is corrupt");
    uint64_t count = 1;
    size_t k = 1;
    while (k < shape.size()) {
        const char c = shape[k];
        if (std::isdigit(static_cast<unsigned char>(c))) {
            uint64_t dim = 0;
            while (k < shape.size() && std::isdigit(static_cast<unsigned char>(shape[k]))) {
                dim = dim * 10 + static_cast<uint64_t>(shape[k] - '0');
                if (dim > (uint64_t{1} << 40)) throw Error(where + ": a dimension is too large; the file is corrupt");
                ++k;
            }
            if (dim != 0 && count > (uint64_t{1} << 40) / dim) throw Error(where + ": the array is too large to load");
            count *= dim;
            a.shape.push_back(static_cast<int64_t>(dim));
        } else if (c == ',' || c == ' ' || c == ')' || c == 'L') {
            ++k;
        } else {
            throw Error(where + ": shape '" + shape + "' is not a tuple of integers; the file is corrupt");
        }
    }
    const size_t data_start = header_start + header_len;
    const uint64_t need = count * static_cast<uint64_t>(item);
    if (size - data_start < need)
        throw Error(where + " is truncated: shape " + a.shape_string() + " of " + descr + " needs " + std::to_string(need) +
                    " bytes of data but only " + std::to_string(size - data_start) + " follow");
    a.data.resize(static_cast<size_t>(count));
    const uint8_t* src = p + data_start;
    if (item == 4) {
        if (need > 0) std::memcpy(a.data.data(), src, static_cast<size_t>(need));
    } else {
        for (size_t i = 0; i < a.data.size(); ++i) {
            double v;
            std::memcpy(&v, src + 8 * i, sizeof v);
            a.data[i] = static_cast<float>(v);
        }
    }
    return a;
}

}  // namespace attnscope
