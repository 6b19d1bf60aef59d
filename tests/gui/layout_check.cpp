// layout_check — reads what `attnscope gui --screenshot F --layout-json L` wrote and checks the picture against it.
//   layout_check columns LAYOUT.json VIEW_ID...
//     Every key column a lesson outlines in a view of these variant ids must be visible in the screenshot: in at
//     least 30% of the heatmap's pixel rows, the pixel column over the key's cell differs clearly from the pixels just
//     outside the outline on either side. Exit 1 naming every column that is not.
//   layout_check min-side LAYOUT.json PIXELS
//     Every heatmap of the Matrices window is at least PIXELS wide and tall. Exit 1 naming every smaller one.
//   layout_check badges LAYOUT.json
//     Every value the open lesson's check reports for its screen (view, metric) equals the badge that view's heatmap
//     drew for that metric (relative 1e-5), and there is at least one. Exit 1 naming every mismatch.
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace {

struct Image {
    int w = 0, h = 0;
    std::vector<unsigned char> rgb;
    const unsigned char* at(int x, int y) const { return &rgb[(size_t(y) * w + x) * 3]; }
};

Image load(const std::string& path) {
    Image im;
    int c = 0;
    unsigned char* px = stbi_load(path.c_str(), &im.w, &im.h, &c, 3);
    if (!px) {
        std::fprintf(stderr, "cannot read %s: %s\n", path.c_str(), stbi_failure_reason());
        std::exit(2);
    }
    im.rgb.assign(px, px + size_t(im.w) * im.h * 3);
    stbi_image_free(px);
    return im;
}

int difference(const unsigned char* a, const unsigned char* b) {
    return std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]);
}

int columns(const nlohmann::json& layout, const std::set<std::string>& views) {
    const Image im = load(layout.at("screenshot").get<std::string>());
    int checked = 0, hidden = 0;
    for (const auto& h : layout.at("heatmaps")) {
        if (!views.count(h.at("variant").get<std::string>())) continue;
        const auto& plot = h.at("plot");
        const double x0 = plot[0], y0 = plot[1], x1 = plot[2], y1 = plot[3];
        const double cells_x0 = h.at("x_range")[0], ppc = h.at("pixels_per_cell")[0];
        for (const auto& o : h.at("outlines")) {
            if (o.at("kind") != "keys") continue;
            for (int j = o.at("first").get<int>(); j <= o.at("last").get<int>(); ++j) {
                // The pixels over cell j, and samples just outside the outline (drawn 2.5 px beyond them).
                const double left = x0 + (j - cells_x0) * ppc, right = x0 + (j + 1 - cells_x0) * ppc;
                if (right <= x0 || left >= x1) continue;  // not in the visible range
                const int x = std::clamp(int(std::floor((left + right) / 2)), int(x0), int(x1) - 1);
                const int first_l = int(std::floor(left)), last_r = int(std::ceil(right)) - 1;
                std::vector<int> outside;
                if (first_l - 6 >= int(x0)) outside.push_back(first_l - 6);
                if (last_r + 6 < int(x1)) outside.push_back(last_r + 6);
                int rows = 0, differs = 0;
                for (int y = int(std::ceil(y0)) + 1; y < int(y1) - 1; ++y, ++rows) {
                    bool stands_out = !outside.empty();
                    for (int xo : outside) stands_out = stands_out && difference(im.at(x, y), im.at(xo, y)) > 45;
                    differs += stands_out;
                }
                ++checked;
                const double share = rows > 0 ? double(differs) / rows : 0;
                if (share < 0.3) {
                    ++hidden;
                    std::printf("hidden: %s, key %d ('%s'): stands out in %.0f%% of %d pixel rows at x = %d\n",
                                h.at("instance").get<std::string>().c_str(), j, o.at("label").get<std::string>().c_str(),
                                100 * share, rows, x);
                } else {
                    std::printf("visible: %s, key %d: stands out in %.0f%% of %d pixel rows at x = %d (%.2f px per cell)\n",
                                h.at("instance").get<std::string>().c_str(), j, 100 * share, rows, x, ppc);
                }
            }
        }
    }
    if (checked == 0) {
        std::printf("no outlined key column in the views asked for: nothing was checked\n");
        return 1;
    }
    std::printf("%d of %d outlined key columns visible\n", checked - hidden, checked);
    return hidden == 0 ? 0 : 1;
}

int badges(const nlohmann::json& layout) {
    const nlohmann::json& lesson = layout.at("lesson");
    if (!lesson.contains("screen") || lesson.at("screen").empty()) {
        std::printf("lesson %s: its check reported no value of its screen\n", lesson.value("id", "?").c_str());
        return 1;
    }
    int bad = 0, compared = 0;
    for (const auto& sv : lesson.at("screen")) {
        const int view = sv.at("view");
        const std::string metric = sv.at("metric");
        const double want = sv.at("value");
        bool found = false;
        for (const auto& h : layout.at("heatmaps")) {
            if (h.value("slot", -2) != view || !h.at("badges").contains(metric)) continue;
            found = true;
            const double got = h.at("badges").at(metric);
            const bool same = std::fabs(got - want) <= 1e-5 * std::max(1.0, std::fabs(want));
            std::printf("%s: view %d (%s) %s: badge %.9g, check %.9g\n", same ? "equal" : "DIFFERENT", view,
                        h.at("instance").get<std::string>().c_str(), metric.c_str(), got, want);
            bad += !same, ++compared;
            break;
        }
        if (!found) {
            std::printf("MISSING: view %d has no badge '%s' on screen (the check measured %.9g)\n", view, metric.c_str(), want);
            ++bad;
        }
    }
    std::printf("lesson %s: %d of %zu screen values equal their badges\n", lesson.value("id", "?").c_str(), compared - bad,
                lesson.at("screen").size());
    return bad == 0 ? 0 : 1;
}

int min_side(const nlohmann::json& layout, double pixels) {
    int small = 0, seen = 0;
    for (const auto& h : layout.at("heatmaps")) {
        if (h.at("panel") != "Matrices") continue;
        const auto& p = h.at("plot");
        const double w = double(p[2]) - double(p[0]), hgt = double(p[3]) - double(p[1]);
        ++seen;
        if (w < pixels || hgt < pixels) {
            ++small;
            std::printf("too small: %s is %.0f×%.0f px (needs %.0f)\n", h.at("instance").get<std::string>().c_str(), w, hgt, pixels);
        }
    }
    std::printf("%d of %d heatmaps at least %.0f px\n", seen - small, seen, pixels);
    return seen > 0 && small == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: layout_check columns LAYOUT.json VIEW_ID... | badges LAYOUT.json | "
                             "min-side LAYOUT.json PIXELS\n");
        return 2;
    }
    std::ifstream in(argv[2]);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", argv[2]);
        return 2;
    }
    const nlohmann::json layout = nlohmann::json::parse(in);
    const std::string what = argv[1];
    if (what == "columns") return columns(layout, std::set<std::string>(argv + 3, argv + argc));
    if (what == "badges") return badges(layout);
    if (what == "min-side" && argc == 4) return min_side(layout, std::atof(argv[3]));
    std::fprintf(stderr, "unknown check '%s': columns, badges or min-side PIXELS\n", what.c_str());
    return 2;
}
