// attnscope — TrueType measuring and rasterising through stb_truetype (see font.h).
#include "core/figure/font.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/data/utf8.h"
#include "core/error.h"

#define STB_TRUETYPE_IMPLEMENTATION
#define STBTT_STATIC
#include <stb_truetype.h>

namespace attnscope::figure {

struct Font::Impl {
    std::vector<unsigned char> data;
    stbtt_fontinfo info{};
};

namespace {

/// Code points of UTF-8 text; an invalid sequence becomes U+FFFD rather than an error (a figure still renders).
std::u32string code_points(const std::string& text) {
    try {
        return utf8_decode(text, "figure text");
    } catch (const Error&) {
        return U"\uFFFD";
    }
}

}  // namespace

Font::Font(const std::string& path) : m_impl(std::make_unique<Impl>()), m_path(path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read the font '" + path + "'");
    m_impl->data.assign(std::istreambuf_iterator<char>(in), {});
    const int offset = stbtt_GetFontOffsetForIndex(m_impl->data.data(), 0);
    if (offset < 0 || !stbtt_InitFont(&m_impl->info, m_impl->data.data(), offset))
        throw Error("'" + path + "' is not a TrueType font");
}

Font::~Font() = default;

const Font& Font::get() {
    static const std::unique_ptr<Font> font = [] {
        std::vector<std::string> candidates;
        if (const char* env = std::getenv("ATTNSCOPE_FONT"); env && *env) candidates.push_back(env);
        candidates.push_back("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
        candidates.push_back("/usr/share/fonts/TTF/DejaVuSans.ttf");
        candidates.push_back("/usr/share/fonts/dejavu/DejaVuSans.ttf");
        for (const std::string& path : candidates)
            if (std::filesystem::exists(path)) return std::make_unique<Font>(path);
        std::string tried;
        for (const std::string& path : candidates) tried += (tried.empty() ? "" : ", ") + path;
        throw Error("figures need a TrueType font and none was found (tried " + tried +
                    "): install fonts-dejavu-core (scripts/setup.sh does) or set ATTNSCOPE_FONT to a .ttf file");
    }();
    return *font;
}

float Font::width(const std::string& text, float size) const {
    const float scale = stbtt_ScaleForPixelHeight(&m_impl->info, size);
    float w = 0;
    const std::u32string cps = code_points(text);
    for (size_t k = 0; k < cps.size(); ++k) {
        int advance = 0, bearing = 0;
        stbtt_GetCodepointHMetrics(&m_impl->info, int(cps[k]), &advance, &bearing);
        w += float(advance) * scale;
        if (k + 1 < cps.size()) w += float(stbtt_GetCodepointKernAdvance(&m_impl->info, int(cps[k]), int(cps[k + 1]))) * scale;
    }
    return w;
}

float Font::ascent(float size) const {
    int ascent = 0, descent = 0, gap = 0;
    stbtt_GetFontVMetrics(&m_impl->info, &ascent, &descent, &gap);
    return float(ascent) * stbtt_ScaleForPixelHeight(&m_impl->info, size);
}

Font::Bitmap Font::rasterize(const std::string& text, float size) const {
    const float scale = stbtt_ScaleForPixelHeight(&m_impl->info, size);
    int ascent = 0, descent = 0, gap = 0;
    stbtt_GetFontVMetrics(&m_impl->info, &ascent, &descent, &gap);
    Bitmap b;
    b.baseline = int(std::ceil(float(ascent) * scale));
    b.height = b.baseline + int(std::ceil(-float(descent) * scale)) + 1;
    b.width = int(std::ceil(width(text, size))) + 2;
    b.alpha.assign(size_t(b.width) * b.height, 0);
    const std::u32string cps = code_points(text);
    float x = 0;
    for (size_t k = 0; k < cps.size(); ++k) {
        const int cp = int(cps[k]);
        int advance = 0, bearing = 0;
        stbtt_GetCodepointHMetrics(&m_impl->info, cp, &advance, &bearing);
        int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
        const float shift = x - std::floor(x);
        stbtt_GetCodepointBitmapBoxSubpixel(&m_impl->info, cp, scale, scale, shift, 0, &x0, &y0, &x1, &y1);
        const int gw = x1 - x0, gh = y1 - y0;
        if (gw > 0 && gh > 0) {
            std::vector<unsigned char> glyph(size_t(gw) * gh);
            stbtt_MakeCodepointBitmapSubpixel(&m_impl->info, glyph.data(), gw, gh, gw, scale, scale, shift, 0, cp);
            for (int r = 0; r < gh; ++r)
                for (int c = 0; c < gw; ++c) {
                    const int px = int(std::floor(x)) + x0 + c, py = b.baseline + y0 + r;
                    if (px < 0 || py < 0 || px >= b.width || py >= b.height) continue;
                    uint8_t& dst = b.alpha[size_t(py) * b.width + px];
                    dst = uint8_t(std::min(255, int(dst) + int(glyph[size_t(r) * gw + c])));
                }
        }
        x += float(advance) * scale;
        if (k + 1 < cps.size()) x += float(stbtt_GetCodepointKernAdvance(&m_impl->info, cp, int(cps[k + 1]))) * scale;
    }
    return b;
}

}  // namespace attnscope::figure
