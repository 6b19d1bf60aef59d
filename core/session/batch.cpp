// attnscope — building a batch's input and the pooled pictures and spectra of its views (batch.h); the batch
// itself runs in run_batch.cpp.
// Index: [SECTION] Input  [SECTION] Pooling and spectra
#include "core/session/batch.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>

#include "core/analysis/spectrum.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/data/tensor_import.h"
#include "core/data/text_input.h"
#include "core/data/text_model.h"

namespace attnscope {

// [SECTION] Input

namespace {

/// Q, K, V from the user's files. A path to one of q.npy / k.npy / v.npy stands for its folder.
Heads build_tensor_input(const InputSpec& spec) {
    if (spec.tensors_path.empty())
        throw Error("no tensor file chosen: type the path of a .safetensors file (tensors q, k, v) or of a folder "
                    "with q.npy, k.npy, v.npy, then press Load");
    std::filesystem::path p(spec.tensors_path);
    std::error_code ec;
    if (p.extension() == ".npy" && !std::filesystem::is_directory(p, ec)) {
        if (!std::filesystem::exists(p, ec))
            throw Error("'" + spec.tensors_path + "' does not exist: check the path (q.npy, k.npy, v.npy belong in one folder)");
        p = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
    }
    try {
        return load_tensor_input(p.string());
    } catch (const Error& e) {  // the loader speaks to the CLI ("--tensors 'F' ..."); here the path came from a file box
        const std::string m = e.what();
        throw Error(m.rfind("--tensors ", 0) == 0 ? "file " + m.substr(10) : m);
    }
}

}  // namespace

Heads build_input(const InputSpec& spec, InputInfo* info) {
    if (spec.mode == InputMode::Synthetic) return make_scenario(spec.scenario);
    if (spec.mode == InputMode::Tensors) return build_tensor_input(spec);
    TextInput in = text_input_of_layer(encode_input_text(spec, info), spec.layer, -1);
    if (info) info->truncated = in.truncated;
    return std::move(in.heads);
}

TextInputSpec text_input_spec(const InputSpec& spec) {
    TextInputSpec t;
    t.text = spec.text;
    t.model_dir = resolve_model(spec.model_dir).path;
    t.layer = spec.layer;
    t.head = -1;
    t.truncate = spec.truncate;  // off by default: too long a text is an error the user can act on, not a silent cut
    return t;
}

TextLayers encode_input_text(const InputSpec& spec, InputInfo* info) {
    const TextInputSpec t = text_input_spec(spec);
    if (info) {  // count first, so the panel can say how long the text is even when it is refused
        info->model = text_model_facts(t.model_dir);
        info->max_tokens = info->model.max_tokens;
        info->tokens = static_cast<int>(tokenize_text(spec.text, t.model_dir).size());
        info->too_long = info->tokens > info->max_tokens && !spec.truncate;
        if (info->too_long)
            throw Error("the text has " + std::to_string(info->tokens) + " tokens but the model reads at most " +
                        std::to_string(info->max_tokens) + ": truncate it to the first " +
                        std::to_string(info->max_tokens) + " tokens or shorten it");
    }
    TextLayers layers = encode_text_layers(t);
    if (info) info->truncated = layers.input.truncated;
    return layers;
}

// [SECTION] Pooling and spectra

std::vector<uint8_t> pool_mask(const ReasonMask& mask, int size) {
    const int H = mask.heads, n = mask.n, s = std::min(n, size);
    std::vector<uint8_t> out(static_cast<size_t>(H) * s * s, 0);
    constexpr int kReasons = static_cast<int>(Reason::Count);
    if (s == n) {  // one cell per bin (every text): the pooled mask is the mask, unknown codes as "none"
        for (size_t k = 0; k < out.size(); ++k) out[k] = mask.cells[k] < kReasons ? mask.cells[k] : 0;
        return out;
    }
    // The most salient reason of the bin (core/reason.h): a one-cell sink or global column among window cells stays
    // visible at any zoom, as the GUI's pixels do (shaders/heatmap.frag). The fold of most_salient over the bin's
    // cells, read from a salience table: at n = 16384 a mask is 2^28 cells per head, one call per cell took seconds.
    // A 0 cell ("none") never wins the fold (it is where it starts), so words of eight 0 cells are skipped.
    std::array<int, 256> salience;
    for (int c = 0; c < 256; ++c) salience[size_t(c)] = c < kReasons ? reason_salience(static_cast<Reason>(c)) : -1;
#pragma omp parallel for schedule(static)
    for (int hb = 0; hb < H * s; ++hb) {
        const int h = hb / s, bi = hb % s;
        const int64_t i0 = pool_bin_begin(bi, n, s), i1 = pool_bin_end(bi, n, s);
        for (int bj = 0; bj < s; ++bj) {
            const int64_t j0 = pool_bin_begin(bj, n, s), j1 = pool_bin_end(bj, n, s);
            uint8_t best = 0;
            int best_salience = salience[0];
            const auto consider = [&](uint8_t c) {
                if (salience[c] > best_salience) best = c, best_salience = salience[c];
            };
            for (int64_t i = i0; i < i1; ++i) {
                const uint8_t* row = mask.cells.data() + (static_cast<size_t>(h) * n + i) * n;
                int64_t j = j0;
                for (; j + 8 <= j1; j += 8) {
                    uint64_t word;
                    std::memcpy(&word, row + j, sizeof word);
                    if (word == 0) continue;
                    for (int k = 0; k < 8; ++k) consider(row[j + k]);
                }
                for (; j < j1; ++j) consider(row[j]);
            }
            out[(static_cast<size_t>(h) * s + bi) * s + bj] = best;
        }
    }
    return out;
}

std::vector<uint32_t> reasons_per_plane(const std::vector<uint8_t>& pooled_mask, int planes) {
    static_assert(static_cast<int>(Reason::Count) <= 32, "one bit per reason");
    std::vector<uint32_t> bits(static_cast<size_t>(std::max(planes, 0)), 0);
    if (planes <= 0) return bits;
    const size_t cells = pooled_mask.size() / static_cast<size_t>(planes);
    for (int p = 0; p < planes; ++p) {
        std::array<bool, 256> seen{};
        for (size_t c = 0; c < cells; ++c) seen[pooled_mask[static_cast<size_t>(p) * cells + c]] = true;
        for (int r = 0; r < static_cast<int>(Reason::Count); ++r)
            if (seen[static_cast<size_t>(r)]) bits[static_cast<size_t>(p)] |= 1u << r;
    }
    return bits;
}

SpectrumView matrix_spectrum(const Tensor3& M, int h) {
    CpuBackend cpu;
    return matrix_spectrum(M, h, cpu);
}

SpectrumView matrix_spectrum(const Tensor3& M, int h, Backend& backend) {
    SpectrumView s;
    if (h >= 0) h = M.plane_for(h);
    if (h < 0 || h >= M.heads()) {
        s.note = "head " + std::to_string(h) + " does not exist";
        return s;
    }
    const Spectrum sp = compute_spectrum(M, h, backend);
    s.singular_values = sp.singular_values;
    s.cumulative = sp.cumulative;
    s.exact = sp.exact;
    return s;
}

}  // namespace attnscope
