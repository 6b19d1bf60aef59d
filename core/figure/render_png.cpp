// attnscope — the PNG rasteriser of figures and the file writer (see render.h).
#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/error.h"
#include "core/session/export.h"
#include "core/figure/font.h"
#include "core/figure/render.h"

namespace attnscope::figure {

namespace {

struct Raster {
    int width, height;
    std::vector<uint8_t> rgb;
    void blend(int x, int y, const Rgb& c, int alpha) {
        if (x < 0 || y < 0 || x >= width || y >= height || alpha <= 0) return;
        uint8_t* p = &rgb[(size_t(y) * width + x) * 3];
        for (int k = 0; k < 3; ++k) p[k] = uint8_t((int(p[k]) * (255 - alpha) + int(c[k]) * alpha + 127) / 255);
    }
};

int px(float v, float scale) { return int(std::lround(v * scale)); }

void draw_text(Raster& r, const TextCmd& t, float scale) {
    const Font::Bitmap b = Font::get().rasterize(t.text, t.size * scale);
    const float w = Font::get().width(t.text, t.size * scale);
    const float shift = t.anchor == TextCmd::Anchor::Start ? 0 : t.anchor == TextCmd::Anchor::Middle ? w / 2 : w;
    const int ax = px(t.x, scale), ay = px(t.y, scale);
    for (int v = 0; v < b.height; ++v)
        for (int u = 0; u < b.width; ++u) {
            const int a = b.alpha[size_t(v) * b.width + u];
            if (!a) continue;
            if (!t.vertical) r.blend(ax + u - int(std::lround(shift)), ay + v - b.baseline, t.colour, a);
            else r.blend(ax + v - b.baseline, ay - u + int(std::lround(shift)), t.colour, a);  // reads bottom to top
        }
}

}  // namespace

std::vector<uint8_t> rasterize(const Canvas& canvas, float scale, int& width, int& height) {
    width = std::max(1, px(canvas.width, scale)), height = std::max(1, px(canvas.height, scale));
    Raster r{width, height, std::vector<uint8_t>(size_t(width) * height * 3)};
    for (size_t k = 0; k < r.rgb.size(); k += 3) std::copy(canvas.background.begin(), canvas.background.end(), &r.rgb[k]);
    for (const RectCmd& c : canvas.rects)
        for (int y = std::max(0, px(c.y, scale)); y < std::min(height, px(c.y + c.h, scale)); ++y)
            for (int x = std::max(0, px(c.x, scale)); x < std::min(width, px(c.x + c.w, scale)); ++x) r.blend(x, y, c.colour, 255);
    for (const ImageCmd& img : canvas.images) {
        const int x0 = px(img.x, scale), y0 = px(img.y, scale), x1 = px(img.x + img.w, scale), y1 = px(img.y + img.h, scale);
        const int w = std::max(1, x1 - x0), h = std::max(1, y1 - y0);
        const std::vector<uint8_t> pixels = reduce_image(img, w, h);  // one texel per output pixel, by rank
        for (int y = std::max(0, y0); y < std::min(height, y1); ++y)
            for (int x = std::max(0, x0); x < std::min(width, x1); ++x) {
                const uint8_t* c = &pixels[(size_t(y - y0) * w + (x - x0)) * 3];
                std::copy(c, c + 3, &r.rgb[(size_t(y) * width + x) * 3]);
            }
    }
    for (const TextCmd& t : canvas.texts) draw_text(r, t, scale);
    return r.rgb;
}

namespace {

bool ends_with(const std::string& path, const std::string& ext) {
    if (path.size() < ext.size()) return false;
    std::string tail = path.substr(path.size() - ext.size());
    std::transform(tail.begin(), tail.end(), tail.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return tail == ext;
}

}  // namespace

void require_figure_extension(const std::string& path) {
    if (!ends_with(path, ".png") && !ends_with(path, ".svg")) throw Error("figure file '" + path + "' must end in .png or .svg");
}

void write_canvas(const std::string& path, const Canvas& canvas, float scale) {
    require_figure_extension(path);
    if (ends_with(path, ".svg")) return write_file_atomically(path, to_svg(canvas));
    if (!(scale > 0) || canvas.width * scale > 16384 || canvas.height * scale > 16384)
        throw Error("figure of " + std::to_string(int(canvas.width * scale)) + "×" + std::to_string(int(canvas.height * scale)) +
                    " pixels is outside 1…16384 per side: lower --dpi or --size");
    int w = 0, h = 0;
    const std::vector<uint8_t> rgb = rasterize(canvas, scale, w, h);
    write_rgb_png(path, w, h, rgb.data());
}

}  // namespace attnscope::figure
