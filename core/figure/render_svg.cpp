// attnscope — the SVG writer of figures (see render.h).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "core/session/export.h"
#include "core/figure/font.h"
#include "core/figure/render.h"

namespace attnscope::figure {

namespace {

std::string hex(const Rgb& c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c[0], c[1], c[2]);
    return buf;
}

std::string escape_xml(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default:
                // XML 1.0 forbids most control characters even escaped; a token never needs them.
                if (static_cast<unsigned char>(c) < 0x20 && c != '\t') out += ' ';
                else out += c;
        }
    }
    return out;
}

std::string base64(const std::string& bytes) {
    static const char* const table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (size_t k = 0; k < bytes.size(); k += 3) {
        const uint32_t a = uint8_t(bytes[k]), b = k + 1 < bytes.size() ? uint8_t(bytes[k + 1]) : 0,
                       c = k + 2 < bytes.size() ? uint8_t(bytes[k + 2]) : 0;
        const uint32_t v = (a << 16) | (b << 8) | c;
        out += table[(v >> 18) & 63];
        out += table[(v >> 12) & 63];
        out += k + 1 < bytes.size() ? table[(v >> 6) & 63] : '=';
        out += k + 2 < bytes.size() ? table[v & 63] : '=';
    }
    return out;
}

/// The image as PNG bytes. More texels than twice the shown size are reduced by rank first (canvas.h): the viewer
/// draws it pixelated, so it would drop cells as the PNG writer would; fewer are enlarged to k×k pixels so viewers
/// that smooth images keep sharp cells.
std::string image_png(const ImageCmd& img) {
    const int shown_w = std::max(1, int(std::ceil(2 * img.w))), shown_h = std::max(1, int(std::ceil(2 * img.h)));
    if (img.width > shown_w || img.height > shown_h) {
        const int w = std::min(img.width, shown_w), h = std::min(img.height, shown_h);
        return encode_rgb_png(w, h, reduce_image(img, w, h).data());
    }
    const int k = std::max(1, std::min(8, int(std::ceil(512.0 / std::max(img.width, img.height)))));
    return encode_rgb_png(img.width * k, img.height * k, reduce_image(img, img.width * k, img.height * k).data());
}

std::string point_list(const std::vector<std::array<float, 2>>& points) {
    std::ostringstream o;
    o.precision(6);
    for (const auto& p : points) o << p[0] << "," << p[1] << " ";
    return o.str();
}

/// One marker element: filled, or a ring drawn as a stroke of size/6 inside the outline (as the PNG draws it).
std::string marker_svg(const MarkerCmd& m) {
    std::ostringstream o;
    o.precision(6);
    const float ring = m.size / 6, r = m.ring ? m.size / 2 - ring / 2 : m.size / 2;
    const std::string paint = m.ring ? "fill=\"none\" stroke=\"" + hex(m.colour) + "\" stroke-width=\"" + std::to_string(ring) + "\""
                                     : "fill=\"" + hex(m.colour) + "\"";
    if (m.shape == MarkerCmd::Shape::Circle)
        o << "<circle cx=\"" << m.x << "\" cy=\"" << m.y << "\" r=\"" << r << "\" " << paint << "/>\n";
    else if (m.shape == MarkerCmd::Shape::Square)
        o << "<rect x=\"" << m.x - r << "\" y=\"" << m.y - r << "\" width=\"" << 2 * r << "\" height=\"" << 2 * r << "\" " << paint << "/>\n";
    else {
        const float d = r * 1.2f;
        o << "<polygon points=\"" << m.x << "," << m.y - d << " " << m.x + d << "," << m.y << " " << m.x << "," << m.y + d << " "
          << m.x - d << "," << m.y << "\" " << paint << "/>\n";
    }
    return o.str();
}

}  // namespace

std::string to_svg(const Canvas& canvas) {
    std::ostringstream o;
    o.precision(6);
    const std::string family = std::filesystem::path(Font::get().path()).stem().string();
    o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << canvas.width << "\" height=\"" << canvas.height
      << "\" viewBox=\"0 0 " << canvas.width << " " << canvas.height << "\" font-family=\"'DejaVu Sans', '" << family
      << "', Verdana, sans-serif\">\n";
    o << "<rect width=\"100%\" height=\"100%\" fill=\"" << hex(canvas.background) << "\"/>\n";
    for (const RectCmd& r : canvas.rects)
        o << "<rect x=\"" << r.x << "\" y=\"" << r.y << "\" width=\"" << r.w << "\" height=\"" << r.h << "\" fill=\""
          << hex(r.colour) << "\"/>\n";
    for (const ImageCmd& img : canvas.images)
        o << "<image x=\"" << img.x << "\" y=\"" << img.y << "\" width=\"" << img.w << "\" height=\"" << img.h
          << "\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64,"
          << base64(image_png(img)) << "\"/>\n";
    for (const PolygonCmd& p : canvas.polygons)
        o << "<polygon points=\"" << point_list(p.points) << "\" fill=\"" << hex(p.colour) << "\" fill-opacity=\""
          << p.opacity << "\"/>\n";
    for (const LineCmd& l : canvas.lines)
        o << "<polyline points=\"" << point_list(l.points) << "\" fill=\"none\" stroke=\"" << hex(l.colour)
          << "\" stroke-width=\"" << l.width << "\" stroke-linejoin=\"round\" stroke-linecap=\"round\""
          << (l.dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
    for (const MarkerCmd& m : canvas.markers) o << marker_svg(m);
    for (const TextCmd& t : canvas.texts) {
        const char* anchor = t.anchor == TextCmd::Anchor::Start ? "start" : t.anchor == TextCmd::Anchor::Middle ? "middle" : "end";
        o << "<text x=\"" << t.x << "\" y=\"" << t.y << "\" font-size=\"" << t.size << "\" fill=\"" << hex(t.colour)
          << "\" text-anchor=\"" << anchor << "\"";
        if (t.vertical) o << " transform=\"rotate(-90 " << t.x << " " << t.y << ")\"";
        o << ">" << escape_xml(t.text) << "</text>\n";
    }
    o << "</svg>\n";
    return o.str();
}

}  // namespace attnscope::figure
