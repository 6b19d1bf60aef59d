#include "core/data/gguf_file.h"

#include <cctype>
#include <cstring>

#include "core/data/ggml_messages.h"
#include "core/data/mapped_file.h"
#include <ggml.h>
#include <gguf.h>

namespace attnscope {

namespace {

std::string dims_text(const std::vector<int64_t>& dims) {
    std::string s = "[";
    for (size_t k = 0; k < dims.size(); ++k) s += (k ? ", " : "") + std::to_string(dims[k]);
    return s + "]";
}

}  // namespace

std::string dequantisable_type_names() {
    std::string names;
    for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
        const ggml_type_traits* traits = ggml_get_type_traits(static_cast<ggml_type>(t));
        if (!traits || !traits->type_name || traits->blck_size == 0) continue;
        if (t != GGML_TYPE_F32 && !traits->to_float) continue;
        std::string upper = traits->type_name;  // ggml writes "q4_K"; GGUF's tools and model cards write Q4_K
        for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        names += (names.empty() ? "" : ", ") + upper;
    }
    return names;
}

std::shared_ptr<const GgufFile> GgufFile::open(const std::string& path) {
    auto mapped = std::make_shared<const MappedFile>(path);
    const uint8_t* data = mapped->data();
    const size_t size = mapped->size();
    return parse_image(std::move(mapped), data, size, path);
}

std::shared_ptr<const GgufFile> GgufFile::parse(std::vector<uint8_t> bytes, const std::string& name) {
    auto owned = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
    const uint8_t* data = owned->data();
    const size_t size = owned->size();
    return parse_image(std::move(owned), data, size, name);
}

std::shared_ptr<const GgufFile> GgufFile::parse_image(std::shared_ptr<const void> owner, const uint8_t* data, size_t size,
                                                      const std::string& name) {
    std::shared_ptr<GgufFile> file(new GgufFile());
    file->m_name = name, file->m_owner = std::move(owner), file->m_data = data, file->m_size = size;
    static constexpr char kSupported[] = "attnscope reads GGUF files of version 2 or 3 (llama.cpp's format)";
    if (size < 4 || data[0] != 'G' || data[1] != 'G' || data[2] != 'U' || data[3] != 'F')
        throw Error("'" + name + "' is not a GGUF file (it does not start with the bytes 'GGUF'): " + kSupported +
                    "; give a .gguf model file or a BERT folder");
    GgmlMessages messages;
    gguf_init_params params{/*no_alloc=*/true, /*ctx=*/nullptr};
    file->m_ctx = gguf_init_from_buffer(data, size, params);
    if (!file->m_ctx) {
        const std::string why = messages.text("ggml's reader stopped");
        // A type ggml does not read (a newer or a deprecated one) is not a damaged download: say which types are read.
        const bool type = why.find("tensor '") != std::string::npos && why.find(" type ") != std::string::npos;
        throw Error("'" + name + "' is not a readable GGUF file (" + why + "): " +
                    (type ? "a tensor is stored in a type ggml does not read; attnscope reads " + dequantisable_type_names()
                          : "the file is truncated or corrupt; download it again. " + std::string(kSupported)));
    }
    const size_t data_offset = gguf_get_data_offset(file->m_ctx);
    const int64_t count = gguf_get_n_tensors(file->m_ctx);
    file->m_tensors.reserve(static_cast<size_t>(count));
    for (int64_t t = 0; t < count; ++t) {
        GgufTensorInfo info;
        info.name = gguf_get_tensor_name(file->m_ctx, t);
        info.type = gguf_get_tensor_type(file->m_ctx, t);
        const int64_t* ne = gguf_get_tensor_ne(file->m_ctx, t);
        int dims = GGML_MAX_DIMS;
        while (dims > 1 && ne[dims - 1] == 1) --dims;
        info.dims.assign(ne, ne + dims);
        info.bytes = gguf_get_tensor_size(file->m_ctx, t);
        info.offset = data_offset + gguf_get_tensor_offset(file->m_ctx, t);
        if (info.offset < data_offset || info.offset > size || info.bytes > size - info.offset)
            throw Error("'" + name + "' is truncated: tensor '" + info.name + "' ends at byte " +
                        std::to_string(info.offset + info.bytes) + " but the file has " + std::to_string(size) +
                        " bytes; download it again");
        file->m_tensors.push_back(std::move(info));
    }
    return file;
}

GgufFile::~GgufFile() {
    if (m_ctx) gguf_free(m_ctx);
}

int64_t GgufFile::key_id(const std::string& key) const { return gguf_find_key(m_ctx, key.c_str()); }

std::optional<std::string> GgufFile::string_value(const std::string& key) const {
    const int64_t id = key_id(key);
    if (id < 0) return std::nullopt;
    if (gguf_get_kv_type(m_ctx, id) != GGUF_TYPE_STRING)
        throw Error("'" + m_name + "': metadata key '" + key + "' should be a string but is " +
                    gguf_type_name(gguf_get_kv_type(m_ctx, id)) + "; the file is not a model attnscope can read");
    return std::string(gguf_get_val_str(m_ctx, id));
}

std::optional<int64_t> GgufFile::int_value(const std::string& key) const {
    const int64_t id = key_id(key);
    if (id < 0) return std::nullopt;
    switch (gguf_get_kv_type(m_ctx, id)) {
        case GGUF_TYPE_UINT8: return gguf_get_val_u8(m_ctx, id);
        case GGUF_TYPE_INT8: return gguf_get_val_i8(m_ctx, id);
        case GGUF_TYPE_UINT16: return gguf_get_val_u16(m_ctx, id);
        case GGUF_TYPE_INT16: return gguf_get_val_i16(m_ctx, id);
        case GGUF_TYPE_UINT32: return gguf_get_val_u32(m_ctx, id);
        case GGUF_TYPE_INT32: return gguf_get_val_i32(m_ctx, id);
        case GGUF_TYPE_UINT64: return static_cast<int64_t>(gguf_get_val_u64(m_ctx, id));
        case GGUF_TYPE_INT64: return gguf_get_val_i64(m_ctx, id);
        default:
            throw Error("'" + m_name + "': metadata key '" + key + "' should be an integer but is " +
                        gguf_type_name(gguf_get_kv_type(m_ctx, id)) + "; the file is not a model attnscope can read");
    }
}

std::optional<double> GgufFile::float_value(const std::string& key) const {
    const int64_t id = key_id(key);
    if (id < 0) return std::nullopt;
    switch (gguf_get_kv_type(m_ctx, id)) {
        case GGUF_TYPE_FLOAT32: return gguf_get_val_f32(m_ctx, id);
        case GGUF_TYPE_FLOAT64: return gguf_get_val_f64(m_ctx, id);
        default: return static_cast<double>(*int_value(key));  // an integer stands for its value; others throw there
    }
}

std::optional<size_t> GgufFile::array_size(const std::string& key) const {
    const int64_t id = key_id(key);
    if (id < 0 || gguf_get_kv_type(m_ctx, id) != GGUF_TYPE_ARRAY) return std::nullopt;
    return gguf_get_arr_n(m_ctx, id);
}

const GgufTensorInfo* GgufFile::find_tensor(const std::string& name) const {
    for (const GgufTensorInfo& t : m_tensors)
        if (t.name == name) return &t;
    return nullptr;
}

MatrixRM GgufFile::read_matrix(const std::string& name, int64_t rows, int64_t cols) const {
    const GgufTensorInfo* t = find_tensor(name);
    if (!t) throw Error("'" + m_name + "' has no tensor '" + name + "': not a llama-architecture checkpoint attnscope can run");
    const std::vector<int64_t> want = rows == 1 ? std::vector<int64_t>{cols} : std::vector<int64_t>{cols, rows};
    if (t->dims != want)
        throw Error("'" + m_name + "': tensor '" + name + "' has shape " + dims_text(t->dims) + " but the metadata implies " +
                    dims_text(want) + "; the file's tensors do not match its metadata");
    const auto type = static_cast<ggml_type>(t->type);
    const ggml_type_traits* traits = ggml_get_type_traits(type);
    MatrixRM out(rows, cols);
    const uint8_t* src = m_data + t->offset;
    const size_t row_bytes = ggml_row_size(type, cols);
    if (type == GGML_TYPE_F32) {
        std::memcpy(out.data(), src, size_t(rows) * size_t(cols) * sizeof(float));
    } else if (traits && traits->to_float && row_bytes * size_t(rows) <= t->bytes) {
#pragma omp parallel for schedule(static) if (rows >= 256)
        for (int64_t r = 0; r < rows; ++r) traits->to_float(src + size_t(r) * row_bytes, out.data() + r * cols, cols);
    } else {
        throw Error("'" + m_name + "': tensor '" + name + "' is stored as " +
                    (traits && traits->type_name ? traits->type_name : "an unknown type") +
                    ", which ggml cannot dequantise; attnscope reads " + dequantisable_type_names());
    }
    return out;
}

Eigen::RowVectorXf GgufFile::read_vector(const std::string& name, int64_t size) const {
    return read_matrix(name, 1, size).row(0);
}

}  // namespace attnscope
