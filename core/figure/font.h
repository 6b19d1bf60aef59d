// attnscope — the TrueType font figures are measured and drawn with (DejaVu Sans, installed by scripts/setup.sh
// as fonts-dejavu-core; ATTNSCOPE_FONT overrides the path). Layout measures with it; the PNG writer draws with it;
// the SVG names it so a viewer with the font shows identical widths.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attnscope::figure {

/// A loaded TrueType font.
class Font {
public:
    /// Loads the figure font; throws Error naming the paths tried and how to install one.
    static const Font& get();
    /// Loads a font file; throws Error when it is missing or not a TrueType font.
    explicit Font(const std::string& path);
    ~Font();
    Font(const Font&) = delete;
    Font& operator=(const Font&) = delete;

    /// Advance width of UTF-8 `text` at pixel size `size` (invalid bytes are measured as U+FFFD).
    float width(const std::string& text, float size) const;
    /// Ascent above the baseline at pixel size `size`.
    float ascent(float size) const;
    /// Draws `text` as 8-bit coverage into a new bitmap: width·height bytes, baseline at row `baseline`.
    struct Bitmap {
        int width = 0, height = 0, baseline = 0;
        std::vector<uint8_t> alpha;
    };
    Bitmap rasterize(const std::string& text, float size) const;
    /// The file this font was read from (the SVG names its family).
    const std::string& path() const { return m_path; }

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    std::string m_path;
};

}  // namespace attnscope::figure
