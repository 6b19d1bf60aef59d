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

constexpr float kDashOn = 6, kDashPeriod = 10;  // dashes in logical pixels, as the SVG's stroke-dasharray

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

/// Coverage (0…255) of a pixel centre at distance `dist` from a shape's edge inside (negative) or outside.
int coverage(float dist) { return int(std::lround(std::clamp(0.5f - dist, 0.0f, 1.0f) * 255)); }

/// One segment a→b of a line `half` wide on each side, anti-aliased; `dash_from` is the length drawn before a
/// (dashes continue across segments). Returns the length after b.
float draw_segment(Raster& r, std::array<float, 2> a, std::array<float, 2> b, float half, const Rgb& c, bool dashed,
                   float dash_from, float scale) {
    const float dx = b[0] - a[0], dy = b[1] - a[1], len2 = dx * dx + dy * dy, len = std::sqrt(len2);
    const int x0 = int(std::floor(std::min(a[0], b[0]) - half - 1)), x1 = int(std::ceil(std::max(a[0], b[0]) + half + 1));
    const int y0 = int(std::floor(std::min(a[1], b[1]) - half - 1)), y1 = int(std::ceil(std::max(a[1], b[1]) + half + 1));
    for (int y = std::max(0, y0); y <= std::min(r.height - 1, y1); ++y)
        for (int x = std::max(0, x0); x <= std::min(r.width - 1, x1); ++x) {
            const float px_ = float(x) + 0.5f, py_ = float(y) + 0.5f;
            const float t = len2 > 0 ? std::clamp(((px_ - a[0]) * dx + (py_ - a[1]) * dy) / len2, 0.0f, 1.0f) : 0.0f;
            if (dashed && std::fmod(dash_from + t * len, kDashPeriod * scale) > kDashOn * scale) continue;
            const float ex = a[0] + t * dx - px_, ey = a[1] + t * dy - py_;
            r.blend(x, y, c, coverage(std::sqrt(ex * ex + ey * ey) - half));
        }
    return dash_from + len;
}

void draw_line(Raster& r, const LineCmd& l, float scale) {
    float along = 0;
    const float half = std::max(0.5f, l.width * scale / 2);
    for (size_t k = 1; k < l.points.size(); ++k) {
        const std::array<float, 2> a{l.points[k - 1][0] * scale, l.points[k - 1][1] * scale};
        const std::array<float, 2> b{l.points[k][0] * scale, l.points[k][1] * scale};
        along = draw_segment(r, a, b, half, l.colour, l.dashed, along, scale);
    }
}

/// Even–odd fill at pixel centres, blended at the polygon's opacity.
void draw_polygon(Raster& r, const PolygonCmd& p, float scale) {
    if (p.points.size() < 3) return;
    float top = 1e30f, bottom = -1e30f;
    for (const auto& q : p.points) top = std::min(top, q[1] * scale), bottom = std::max(bottom, q[1] * scale);
    const int alpha = int(std::lround(std::clamp(p.opacity, 0.0f, 1.0f) * 255));
    for (int y = std::max(0, int(std::floor(top))); y <= std::min(r.height - 1, int(std::ceil(bottom))); ++y) {
        const float cy = float(y) + 0.5f;
        std::vector<float> xs;
        for (size_t k = 0; k < p.points.size(); ++k) {
            const auto& a = p.points[k];
            const auto& b = p.points[(k + 1) % p.points.size()];
            const float ay = a[1] * scale, by = b[1] * scale;
            if ((ay <= cy) == (by <= cy)) continue;
            xs.push_back(a[0] * scale + (cy - ay) / (by - ay) * (b[0] - a[0]) * scale);
        }
        std::sort(xs.begin(), xs.end());
        for (size_t k = 0; k + 1 < xs.size(); k += 2)
            for (int x = std::max(0, int(std::lround(xs[k]))); x < std::min(r.width, int(std::lround(xs[k + 1]))); ++x)
                r.blend(x, y, p.colour, alpha);
    }
}

void draw_marker(Raster& r, const MarkerCmd& m, float scale) {
    const float cx = m.x * scale, cy = m.y * scale, rad = m.size * scale / 2, ring = std::max(1.0f, m.size * scale / 6);
    for (int y = int(std::floor(cy - rad - 1)); y <= int(std::ceil(cy + rad + 1)); ++y)
        for (int x = int(std::floor(cx - rad - 1)); x <= int(std::ceil(cx + rad + 1)); ++x) {
            const float dx = std::fabs(float(x) + 0.5f - cx), dy = std::fabs(float(y) + 0.5f - cy);
            const float d = m.shape == MarkerCmd::Shape::Circle ? std::sqrt(dx * dx + dy * dy) - rad
                            : m.shape == MarkerCmd::Shape::Square ? std::max(dx, dy) - rad
                                                                  : (dx + dy) * 0.7071f - rad * 0.7071f * 1.2f;
            r.blend(x, y, m.colour, m.ring ? std::min(coverage(d), coverage(-d - ring)) : coverage(d));
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
    for (const PolygonCmd& p : canvas.polygons) draw_polygon(r, p, scale);
    for (const LineCmd& l : canvas.lines) draw_line(r, l, scale);
    for (const MarkerCmd& m : canvas.markers) draw_marker(r, m, scale);
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
