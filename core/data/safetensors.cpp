#include "core/data/safetensors.h"

#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/backend/shared/half.h"

namespace attnscope {

namespace {

// The format's own limit on the JSON header (safetensors refuses larger headers too).
constexpr uint64_t kMaxHeaderBytes = 100u * 1024u * 1024u;

}  // namespace

int safetensors_dtype_size(const std::string& t) {
    if (t == "F64" || t == "I64" || t == "U64") return 8;
    if (t == "F32" || t == "I32" || t == "U32") return 4;
    if (t == "F16" || t == "BF16" || t == "I16" || t == "U16") return 2;
    if (t == "I8" || t == "U8" || t == "BOOL" || t == "F8_E4M3" || t == "F8_E5M2") return 1;
    return 0;
}

int64_t SafetensorsEntry::elements() const {
    int64_t count = 1;
    for (int64_t s : shape) count *= s;
    return count;
}

std::string SafetensorsEntry::shape_string() const {
    std::string s = "(";
    for (size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + ")";
}

SafetensorsFile::SafetensorsFile(const std::string& path) : m_file(std::make_shared<MappedFile>(path)) {
    const size_t size = m_file->size();
    const std::string where = "safetensors file '" + path + "'";
    if (size < 8)
        throw Error(where + " is truncated: " + std::to_string(size) +
                    " bytes, fewer than the 8-byte header length; re-export or re-download it");
    uint64_t header_len = 0;
    for (int k = 7; k >= 0; --k) header_len = (header_len << 8) | m_file->data()[k];
    if (header_len > kMaxHeaderBytes)
        throw Error(where + " declares an oversized header of " + std::to_string(header_len) + " bytes (limit " +
                    std::to_string(kMaxHeaderBytes) + "); the file is corrupt or not safetensors");
    if (header_len > size - 8)
        throw Error(where + " is truncated: the header declares " + std::to_string(header_len) + " bytes but only " +
                    std::to_string(size - 8) + " follow; re-export or re-download it");
    const size_t data_start = 8 + static_cast<size_t>(header_len), data_size = size - data_start;

    nlohmann::json header;
    try {
        header = nlohmann::json::parse(reinterpret_cast<const char*>(m_file->data()) + 8,
                                       reinterpret_cast<const char*>(m_file->data()) + data_start);
    } catch (const nlohmann::json::exception& e) {
        throw Error(where + " has a header that is not valid JSON (" + std::string(e.what()) + "); the file is corrupt");
    }
    if (!header.is_object()) throw Error(where + " has a header that is not a JSON object; the file is corrupt");

    for (const auto& [name, value] : header.items()) {
        if (name == "__metadata__") {
            if (value.is_object())
                for (const auto& [k, v] : value.items())
                    if (v.is_string()) m_metadata[k] = v.get<std::string>();
            continue;
        }
        const std::string tensor = where + ", tensor '" + name + "'";
        if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") || !value.contains("data_offsets"))
            throw Error(tensor + ": entry lacks dtype, shape or data_offsets; the file is corrupt");
        SafetensorsEntry e;
        const auto& dtype = value["dtype"];
        const auto& shape = value["shape"];
        const auto& offsets = value["data_offsets"];
        if (!dtype.is_string()) throw Error(tensor + ": dtype is not a string; the file is corrupt");
        e.dtype = dtype.get<std::string>();
        const int item = safetensors_dtype_size(e.dtype);
        if (item == 0) throw Error(tensor + ": unknown dtype '" + e.dtype + "'; the file is corrupt or from a newer format");
        if (!shape.is_array()) throw Error(tensor + ": shape is not a list; the file is corrupt");
        uint64_t elements = 1;
        for (const auto& dim : shape) {
            if (!dim.is_number_integer() || dim.get<int64_t>() < 0)
                throw Error(tensor + ": shape has a negative or non-integer dimension; the file is corrupt");
            const auto d = static_cast<uint64_t>(dim.get<int64_t>());
            if (d != 0 && elements > std::numeric_limits<uint64_t>::max() / d / 8)
                throw Error(tensor + ": shape is too large; the file is corrupt");
            elements *= d;
            e.shape.push_back(static_cast<int64_t>(d));
        }
        if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
            throw Error(tensor + ": data_offsets is not [begin, end] with non-negative integers; the file is corrupt");
        const auto begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
        if (begin > end || end > data_size)
            throw Error(tensor + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                        "] lie outside the " + std::to_string(data_size) +
                        "-byte data section; the file is truncated or corrupt");
        if (end - begin != elements * static_cast<uint64_t>(item))
            throw Error(tensor + ": data_offsets span " + std::to_string(end - begin) + " bytes but shape " +
                        e.shape_string() + " of " + e.dtype + " needs " + std::to_string(elements * item) +
                        "; the file is corrupt");
        e.offset = data_start + static_cast<size_t>(begin);
        e.bytes = static_cast<size_t>(end - begin);
        m_entries.emplace(name, std::move(e));
    }
}

const SafetensorsEntry& SafetensorsFile::entry(const std::string& name) const {
    const auto it = m_entries.find(name);
    if (it == m_entries.end()) {
        std::string some;
        int shown = 0;
        for (const auto& [k, v] : m_entries) {
            if (shown++ == 6) {
                some += ", ...";
                break;
            }
            some += (some.empty() ? "" : ", ") + k;
        }
        throw Error("safetensors file '" + path() + "' has no tensor '" + name + "' (it has: " +
                    (some.empty() ? std::string("none") : some) + ")");
    }
    return it->second;
}

std::vector<std::string> SafetensorsFile::names() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : m_entries) out.push_back(k);
    return out;
}

std::vector<float> SafetensorsFile::read_float(const std::string& name) const {
    const SafetensorsEntry& e = entry(name);
    const auto count = static_cast<size_t>(e.elements());
    std::vector<float> out(count);
    const uint8_t* src = m_file->data() + e.offset;
    if (e.dtype == "F32") {
        if (count > 0) std::memcpy(out.data(), src, count * sizeof(float));  // an empty vector's data() may be null
    } else if (e.dtype == "F16" || e.dtype == "BF16") {
        const bool bf = e.dtype == "BF16";
        for (size_t k = 0; k < count; ++k) {
            const auto bits = static_cast<uint16_t>(src[2 * k] | (src[2 * k + 1] << 8));
            out[k] = bf ? bf16_to_float(bits) : f16_to_float(bits);
        }
    } else if (e.dtype == "F64") {
        for (size_t k = 0; k < count; ++k) {
            double v;
            std::memcpy(&v, src + 8 * k, sizeof v);
            out[k] = static_cast<float>(v);
        }
    } else {
        throw Error("safetensors file '" + path() + "', tensor '" + name + "' has dtype " + e.dtype +
                    "; attnscope reads floating-point tensors only (F32, F16, BF16, F64): convert it to float first");
    }
    return out;
}

}  // namespace attnscope
