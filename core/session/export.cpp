#include "core/session/export.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/backend/cpu/cpu_primitives.h"
#include "core/csv.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO_FOPEN_OVERRIDE
#include <stb_image_write.h>

namespace attnscope {

namespace {

std::string temp_name(const std::string& path) { return path + ".tmp-attnscope"; }

void commit(const std::string& tmp, const std::string& path) {
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::remove(tmp.c_str());
        throw Error("cannot write '" + path + "': " + why + "; check that the folder exists and is writable");
    }
}

void stb_append(void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), size);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text) {
    const std::string tmp = temp_name(path);
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw Error("cannot write '" + path + "': " + std::strerror(errno) + "; check that the folder exists and is writable");
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        if (!out.flush()) {
            std::remove(tmp.c_str());
            throw Error("cannot write '" + path + "': the disk may be full");
        }
    }
    commit(tmp, path);
}

void create_parent_folder(const std::string& path) {
    // parent_path() of a bare name is empty, and create_directories("") fails ("Invalid argument []").
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (parent.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) throw Error("cannot create the folder '" + parent.string() + "' for '" + path + "': " + ec.message() +
                        "; choose a writable location");
}

void write_heatmap_png(const std::string& path, const Tensor3& M, int h, const HeatmapStyle& style) {
    constexpr int kMaxSide = 2048;
    Tensor3 one(1, M.rows(), M.cols());
    one.head(0) = M.head(h);
    Tensor3 view;
    cpu_pooled_view(one, kMaxSide, PoolMode::Max, view);
    const int rows = view.rows(), cols = view.cols();
    float lo = view.head(0).minCoeff(), hi = view.head(0).maxCoeff();
    if (style.symmetric) {
        const float a = std::max(std::fabs(lo), std::fabs(hi));
        lo = -a, hi = a;
    }
    std::vector<unsigned char> rgb(static_cast<size_t>(rows) * cols * 3);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            const float v = view.at(0, i, j);
            float t = 0;
            if (style.log_scale) {
                const float top = std::log10(std::max(hi, 1e-30f));
                t = v > 0 ? (std::log10(v) - (top - 4.0f)) / 4.0f : 0.0f;
            } else {
                t = hi > lo ? (v - lo) / (hi - lo) : 0.5f;
            }
            const auto c = colormap_rgb(style.colormap, std::clamp(t, 0.0f, 1.0f));
            std::copy(c.begin(), c.end(), rgb.begin() + (static_cast<size_t>(i) * cols + j) * 3);
        }
    write_rgb_png(path, cols, rows, rgb.data());
}

std::string encode_rgb_png(int width, int height, const unsigned char* rgb) {
    std::string png;
    if (!stbi_write_png_to_func(stb_append, &png, width, height, 3, rgb, width * 3))
        throw Error("cannot encode a PNG of " + std::to_string(width) + "×" + std::to_string(height) + " pixels");
    return png;
}

void write_rgb_png(const std::string& path, int width, int height, const unsigned char* rgb) {
    write_file_atomically(path, encode_rgb_png(width, height, rgb));
}

void write_matrix_csv(const std::string& path, const Tensor3& M, int h, const std::vector<std::string>& labels) {
    const bool labelled = !labels.empty();
    if (labelled && (int(labels.size()) != M.rows() || M.rows() != M.cols()))
        throw Error("cannot label a " + std::to_string(M.rows()) + "×" + std::to_string(M.cols()) + " matrix with " +
                    std::to_string(labels.size()) + " tokens");
    std::ostringstream out;
    out.precision(9);
    if (labelled) {
        out << "query\\key";
        for (const std::string& l : labels) out << ',' << csv_field(l);
        out << '\n';
    }
    for (int i = 0; i < M.rows(); ++i) {
        if (labelled) out << csv_field(labels[size_t(i)]) << ',';
        for (int j = 0; j < M.cols(); ++j) out << (j ? "," : "") << M.at(h, i, j);
        out << '\n';
    }
    write_file_atomically(path, out.str());
}

void write_npy(const std::string& path, const Tensor3& M) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(M.heads()) + ", " +
                         std::to_string(M.rows()) + ", " + std::to_string(M.cols()) + "), }";
    // Magic (6) + version (2) + length (2) + header + '\n' padded to a multiple of 64 bytes.
    const size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header.push_back('\n');
    std::string out("\x93NUMPY\x01\x00", 8);
    out.push_back(static_cast<char>(header.size() & 0xff));
    out.push_back(static_cast<char>(header.size() >> 8));
    out += header;
    out.append(reinterpret_cast<const char*>(M.data()), static_cast<size_t>(M.bytes()));
    write_file_atomically(path, out);
}

}  // namespace attnscope
