// attnscope — shared figure style (see style.h).
#include "core/figure/style.h"

#include <array>

#include "core/figure/font.h"

namespace attnscope::figure {

Colours colours(Theme t) {
    if (t == Theme::Dark)
        return {{22, 22, 26}, {235, 235, 240}, {165, 168, 178}, {120, 120, 130}, {26, 26, 31}, {55, 56, 64}};
    return {{255, 255, 255}, {25, 25, 30}, {95, 98, 108}, {150, 150, 158}, {236, 236, 240}, {228, 228, 232}};
}

Rgb series_colour(int k) {
    // Tableau 10: the categorical palette most plotting libraries default to, readable on white and on near-black.
    static const std::array<Rgb, 10> palette = {{{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40},
                                                  {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
                                                  {188, 189, 34}, {23, 190, 207}}};
    return palette[size_t(((k % 10) + 10) % 10)];
}

std::string fit_text(const std::string& text, float size, float max_width) {
    const Font& font = Font::get();
    if (font.width(text, size) <= max_width) return text;
    std::string s = text;
    while (!s.empty() && font.width(s + "…", size) > max_width) {
        s.pop_back();
        while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();  // whole code points
        if (!s.empty() && (static_cast<unsigned char>(s.back()) & 0x80)) s.pop_back();
    }
    return s + "…";
}

std::vector<std::string> wrap(const std::string& text, float size, float width) {
    std::vector<std::string> lines;
    std::string line, word;
    auto flush_word = [&] {
        if (word.empty()) return;
        const std::string candidate = line.empty() ? word : line + " " + word;
        if (!line.empty() && Font::get().width(candidate, size) > width) lines.push_back(line), line = word;
        else line = candidate;
        word.clear();
    };
    for (char c : text) {
        if (c == ' ') flush_word();
        else word += c;
    }
    flush_word();
    if (!line.empty()) lines.push_back(line);
    return lines;
}

void shift_down(Canvas& canvas, float dy) {
    for (RectCmd& r : canvas.rects) r.y += dy;
    for (ImageCmd& i : canvas.images) i.y += dy;
    for (PolygonCmd& p : canvas.polygons)
        for (auto& q : p.points) q[1] += dy;
    for (LineCmd& l : canvas.lines)
        for (auto& q : l.points) q[1] += dy;
    for (MarkerCmd& m : canvas.markers) m.y += dy;
    for (TextCmd& t : canvas.texts) t.y += dy;
}

}  // namespace attnscope::figure
