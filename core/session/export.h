// attnscope — writing matrices and tables to files (PNG heatmaps, CSV, NPY). Files are written to a
// temporary name and renamed, so an interrupted export never leaves a half-written file behind.
#pragma once
#include <string>
#include <vector>

#include "core/analysis/colormap.h"
#include "core/tensor.h"

namespace attnscope {

/// How matrix values map to colour.
struct HeatmapStyle {
    Colormap colormap = Colormap::Viridis;  // colours
    bool log_scale = false;                 // colour by log10(value), over 4 decades below the max
    bool symmetric = false;                 // centre 0 (for differences): [-max|v|, max|v|]
};

/// Writes head h of M as a colormapped PNG (one pixel per cell, pooled by max above 2048 per side).
/// Throws Error when the file cannot be written, naming the path.
void write_heatmap_png(const std::string& path, const Tensor3& M, int h, const HeatmapStyle& style);

/// An 8-bit RGB image (rows top to bottom) encoded as PNG bytes; throws Error when encoding fails.
std::string encode_rgb_png(int width, int height, const unsigned char* rgb);

/// Writes an 8-bit RGB image (rows top to bottom) as PNG; throws Error when it cannot be written.
void write_rgb_png(const std::string& path, int width, int height, const unsigned char* rgb);

/// Writes head h of M as CSV, one query row per line. With `labels` (one per row and column, e.g. tokens), the first
/// line is a header of column labels and each row starts with its label (RFC 4180 quoting); without, bare
/// numbers. Throws Error when the labels do not match the matrix or the file cannot be written.
void write_matrix_csv(const std::string& path, const Tensor3& M, int h, const std::vector<std::string>& labels = {});

/// Writes the whole tensor as a little-endian float32 .npy of shape (H, rows, cols).
void write_npy(const std::string& path, const Tensor3& M);

/// Writes `text` to `path` atomically (temp file + rename); throws Error saying why it failed.
void write_file_atomically(const std::string& path, const std::string& text);

/// Creates the folder `path` would be written into when it names one that is missing; a bare file name
/// ("bare.json": the current folder) needs none. Throws Error naming the folder when it cannot be created.
void create_parent_folder(const std::string& path);

}  // namespace attnscope
