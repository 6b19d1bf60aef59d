#include "core/analysis/colormap.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "attnscope_embedded_assets.h"

namespace attnscope {

namespace {

std::array<std::array<float, 3>, 256> parse_table(const char* csv) {
    std::array<std::array<float, 3>, 256> table{};
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);  // header
    for (int k = 0; k < 256 && std::getline(in, line); ++k) {
        std::replace(line.begin(), line.end(), ',', ' ');
        std::istringstream row(line);
        row >> table[k][0] >> table[k][1] >> table[k][2];
    }
    return table;
}

}  // namespace

const std::array<std::array<float, 3>, 256>& colormap_table(Colormap map) {
    static const auto viridis = parse_table(assets::kViridisCsv);
    static const auto diverging = parse_table(assets::kDivergingCsv);
    return map == Colormap::Viridis ? viridis : diverging;
}

float ValueScale::position(float v) const {
    const float top = std::max(vmax, 1e-30f);
    float t = 0;
    if (kind == Kind::Linear) t = v / top;
    else if (kind == Kind::Signed) t = 0.5f + 0.5f * v / top;
    else t = v > 0 ? (std::log10(v) - (std::log10(top) - decades)) / decades : 0.0f;
    return std::clamp(t, 0.0f, 1.0f);
}

std::array<uint8_t, 3> colormap_rgb(Colormap map, float t) {
    const int k = std::clamp(static_cast<int>(t * 255.0f + 0.5f), 0, 255);
    const auto& c = colormap_table(map)[k];
    return {static_cast<uint8_t>(c[0] * 255.0f + 0.5f), static_cast<uint8_t>(c[1] * 255.0f + 0.5f),
            static_cast<uint8_t>(c[2] * 255.0f + 0.5f)};
}

}  // namespace attnscope
