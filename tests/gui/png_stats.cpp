// png_stats FILE MIN_COLOURS [--max-share S] [RRGGBB …]: fails (exit 1) unless the PNG has at least MIN_COLOURS
// distinct colours and no single colour covers more than 90% (or S: a chart is mostly background) of it — i.e. the screenshot is not blank — and each listed colour covers at
// least 12 pixels (a figure's series drawn in its SVG are drawn in its PNG too). Prints what it measured.
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: png_stats FILE MIN_COLOURS [--max-share S] [RRGGBB ...]\n");
        return 2;
    }
    int w = 0, h = 0, c = 0;
    unsigned char* px = stbi_load(argv[1], &w, &h, &c, 3);
    if (!px) {
        std::fprintf(stderr, "cannot read %s: %s\n", argv[1], stbi_failure_reason());
        return 1;
    }
    std::unordered_map<unsigned, long> counts;
    for (long k = 0; k < long(w) * h; ++k) ++counts[(px[3 * k] << 16) | (px[3 * k + 1] << 8) | px[3 * k + 2]];
    long dominant = 0;
    for (const auto& kv : counts) dominant = kv.second > dominant ? kv.second : dominant;
    const double share = double(dominant) / (double(w) * h);
    const long min_colours = std::atol(argv[2]);
    std::printf("%s: %dx%d, %zu distinct colours, dominant colour covers %.1f%%\n", argv[1], w, h, counts.size(), 100 * share);
    stbi_image_free(px);
    bool all_present = true;
    double max_share = 0.9;
    int first_colour = 3;
    if (argc >= 5 && std::string(argv[3]) == "--max-share") max_share = std::atof(argv[4]), first_colour = 5;
    for (int a = first_colour; a < argc; ++a) {
        const unsigned colour = unsigned(std::strtoul(argv[a], nullptr, 16));
        const auto it = counts.find(colour);
        const long pixels = it == counts.end() ? 0 : it->second;
        if (pixels < 12) std::printf("%s: colour %s covers %ld pixels (needs 12)\n", argv[1], argv[a], pixels), all_present = false;
    }
    return (long(counts.size()) >= min_colours && share <= max_share && all_present) ? 0 : 1;
}
