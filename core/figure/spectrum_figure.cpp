// attnscope — the spectrum figure (see chart_figures.h).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "core/figure/chart_figures.h"

namespace attnscope::figure {

namespace {

/// The layers × heads map of the cumulative share at index k.
PlotPanel layer_map_panel(const LayerHeadSpectra& s, int grid_index) {
    const int k = std::clamp(grid_index, 1, std::max(1, s.n));
    PlotPanel p;
    p.title = "Every layer and head of the encoder";
    p.subtitle = "exact P: share of Σσ in the top " + std::to_string(k) + " of " + std::to_string(s.n) + " singular values";
    PlotGrid g;
    g.rows = s.layers, g.cols = s.heads;
    for (int l = 0; l < s.layers; ++l) {
        g.row_names.push_back(std::to_string(l));
        for (int h = 0; h < s.heads; ++h) g.values.push_back(s.at(l, h, k));
    }
    for (int h = 0; h < s.heads; ++h) g.col_names.push_back(std::to_string(h));
    g.row_label = "layer", g.col_label = "head";
    g.vmin = 0, g.vmax = 1;
    p.grid = std::move(g);
    p.lines.push_back("1.00: the matrix is at most rank " + std::to_string(k) + " in σ's sum (Linformer Fig. 1 right)");
    if (s.truncated) p.lines.push_back("the text was cut to the model's maximum positions");
    return p;
}

}  // namespace

PlotFigure spectrum_figure(const SpectrumFigureInput& in) {
    if (in.spectra.empty()) throw Error("a spectrum figure needs at least one matrix with singular values");
    PlotFigure f;
    PlotPanel sigma, share;
    sigma.title = "Singular values σᵢ";
    share.title = "Cumulative share of Σσ up to index i";
    sigma.subtitle = share.subtitle = in.head_text + ": exact P and each instance's P_eff (effective attention)";
    sigma.x.label = share.x.label = "index i (descending σ)";
    sigma.y.label = "σᵢ";
    sigma.y.log = true;
    share.y.label = "share of Σσ up to i";
    share.y.min = 0, share.y.max = 1;
    bool randomized = false;
    size_t longest = 1;
    for (const NamedSpectrum& s : in.spectra) longest = std::max(longest, s.spectrum.singular_values.size());
    sigma.x.min = share.x.min = 0, sigma.x.max = share.x.max = double(longest);
    // Below 10⁻⁷ of the largest σ a float32 matrix holds round-off, not structure: the axis stops there.
    double top = 0;
    for (const NamedSpectrum& s : in.spectra)
        if (!s.spectrum.singular_values.empty()) top = std::max(top, s.spectrum.singular_values.front());
    if (top > 0) sigma.y.min = top * 1e-7, sigma.y.max = top * 2;
    for (const NamedSpectrum& s : in.spectra) {
        PlotSeries a, b;
        a.name = b.name = s.name;
        a.ink = b.ink = s.reference ? PlotSeries::Ink::Text : PlotSeries::Ink::Palette;
        a.dashed = b.dashed = s.reference;  // drawn over the instances: full softmax's P_eff would hide it
        a.markers = b.markers = false;
        for (size_t i = 0; i < s.spectrum.singular_values.size(); ++i) {
            a.x.push_back(double(i + 1)), a.y.push_back(s.spectrum.singular_values[i]);
            if (i < s.spectrum.cumulative.size()) b.x.push_back(double(i + 1)), b.y.push_back(s.spectrum.cumulative[i]);
        }
        randomized = randomized || !s.spectrum.exact;
        sigma.series.push_back(std::move(a));
        share.series.push_back(std::move(b));
    }
    // Where the exact matrix reaches 90% of its σ sum: the rank a low-rank method needs for that share.
    for (const NamedSpectrum& s : in.spectra) {
        const auto it = std::lower_bound(s.spectrum.cumulative.begin(), s.spectrum.cumulative.end(), 0.9);
        if (it == s.spectrum.cumulative.end()) continue;
        share.lines.push_back(s.name + ": 90% of Σσ within the top " + std::to_string(int(it - s.spectrum.cumulative.begin()) + 1) +
                              " singular values");
    }
    const std::string how = randomized ? "randomized top-k SVD (the share is normalised over the top k only)"
                                       : "exact SVD of the whole matrix (LAPACK)";
    sigma.lines.push_back("σ from an " + how + "; values below 10⁻⁷ of the largest (float32 round-off) are below the axis");
    f.panels = {std::move(sigma), std::move(share)};
    if (in.layers) f.panels.push_back(layer_map_panel(*in.layers, in.grid_index));
    f.grid_label = "share of Σσ";
    return f;
}

}  // namespace attnscope::figure
