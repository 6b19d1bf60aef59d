#include "core/data/tensor_import.h"

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/data/npy.h"
#include "core/data/safetensors.h"

namespace attnscope {

namespace {

/// A loaded array before it becomes a Tensor3.
struct Raw {
    std::vector<int64_t> shape;
    std::vector<float> data;
    std::string origin;  // for messages: "q.npy", "tensor 'q'"
};

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "(";
    for (size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + ")";
}

Tensor3 to_tensor(const Raw& r, const std::string& where) {
    if (r.shape.size() != 2 && r.shape.size() != 3)
        throw Error(where + ": " + r.origin + " has shape " + shape_text(r.shape) +
                    "; expected (n, d) for one head or (H, n, d)");
    const int64_t H = r.shape.size() == 3 ? r.shape[0] : 1;
    const int64_t n = r.shape[r.shape.size() - 2], d = r.shape.back();
    if (H < 1 || n < 1 || d < 1 || H > 1024 || n > (int64_t{1} << 22) || d > 65536)
        throw Error(where + ": " + r.origin + " has shape " + shape_text(r.shape) +
                    "; every dimension must be ≥ 1 (H ≤ 1024, n ≤ 4194304, d ≤ 65536)");
    Tensor3 t(static_cast<int>(H), static_cast<int>(n), static_cast<int>(d));
    for (int64_t k = 0; k < t.size(); ++k) {
        const float v = r.data[static_cast<size_t>(k)];
        if (!std::isfinite(v)) {
            const int64_t h = k / (n * d), i = (k / d) % n, j = k % d;
            throw Error(where + ": " + r.origin + " holds " + (std::isnan(v) ? "NaN" : "Inf") + " at (" +
                        std::to_string(h) + ", " + std::to_string(i) + ", " + std::to_string(j) +
                        "); only finite values can be attended");
        }
        t.data()[k] = v;
    }
    return t;
}

Raw read_safetensors_tensor(const SafetensorsFile& file, const std::string& lower) {
    std::string upper = lower;
    upper[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(upper[0])));
    const std::string name = file.contains(lower) || !file.contains(upper) ? lower : upper;
    const SafetensorsEntry& e = file.entry(name);  // throws naming the file when absent
    return {e.shape, file.read_float(name), "tensor '" + name + "'"};
}

std::vector<std::string> tokens_from_metadata(const SafetensorsFile& file, const std::string& where) {
    const auto it = file.metadata().find("tokens");
    if (it == file.metadata().end()) return {};
    try {
        const auto j = nlohmann::json::parse(it->second);
        return j.get<std::vector<std::string>>();
    } catch (const nlohmann::json::exception&) {
        throw Error(where + ": metadata 'tokens' is not a JSON list of strings, e.g. [\"[CLS]\", \"hello\"]");
    }
}

std::vector<std::string> tokens_from_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) return {};
    std::vector<std::string> tokens;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        tokens.push_back(line);
    }
    return tokens;
}

}  // namespace

Heads load_tensor_input(const std::string& path) {
    const std::filesystem::path p(path);
    const std::string where = "--tensors '" + path + "'";
    std::error_code ec;
    Raw q, k, v;
    std::vector<std::string> tokens;
    if (std::filesystem::is_directory(p, ec)) {
        for (auto [raw, name] : {std::pair<Raw*, const char*>{&q, "q.npy"}, {&k, "k.npy"}, {&v, "v.npy"}}) {
            const auto file = p / name;
            if (!std::filesystem::exists(file))
                throw Error(where + ": the folder has no " + name + "; it needs q.npy, k.npy and v.npy (see README)");
            NpyArray a = read_npy(file.string());
            *raw = {std::move(a.shape), std::move(a.data), name};
        }
        tokens = tokens_from_file(p / "tokens.txt");
    } else if (std::filesystem::exists(p, ec)) {
        if (p.extension() != ".safetensors")
            throw Error(where + " is neither a .safetensors file nor a folder with q.npy, k.npy, v.npy");
        const SafetensorsFile file(path);
        q = read_safetensors_tensor(file, "q");
        k = read_safetensors_tensor(file, "k");
        v = read_safetensors_tensor(file, "v");
        tokens = tokens_from_metadata(file, where);
    } else {
        throw Error(where + " does not exist: pass a .safetensors file or a folder with q.npy, k.npy, v.npy");
    }
    Heads heads;
    heads.Q = to_tensor(q, where);
    heads.K = to_tensor(k, where);
    heads.V = to_tensor(v, where);
    if (heads.K.heads() != heads.Q.heads() || heads.K.rows() != heads.Q.rows() || heads.K.cols() != heads.Q.cols())
        throw Error(where + ": K " + heads.K.shape_string() + " must have the shape of Q " + heads.Q.shape_string());
    if (heads.V.heads() != heads.Q.heads() || heads.V.rows() != heads.Q.rows())
        throw Error(where + ": V " + heads.V.shape_string() + " must have the heads and rows of Q " +
                    heads.Q.shape_string());
    if (!tokens.empty() && static_cast<int>(tokens.size()) != heads.n())
        throw Error(where + ": " + std::to_string(tokens.size()) + " token strings for n = " + std::to_string(heads.n()) +
                    " rows; give one token per row or none");
    heads.tokens = std::move(tokens);
    heads.source = "tensors:" + path;
    return heads;
}

}  // namespace attnscope
