// Chart figures (core/figure/plot.h, chart_figures.h): log axes labelled at decades, the legend below every data
// mark, point labels that never overlap, arrays checked, and the charts' series built from the data they are given.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/error.h"
#include "core/figure/chart_figures.h"
#include "core/figure/font.h"
#include "core/figure/plot.h"

namespace attnscope::figure {
namespace {

std::vector<std::string> labels_of(const std::vector<std::pair<double, std::string>>& ticks) {
    std::vector<std::string> out;
    for (const auto& [v, label] : ticks)
        if (!label.empty()) out.push_back(label);
    return out;
}

TEST(PlotAxis, LogTicksAreLabelledAtEveryDecadeInside) {
    double lo = 0.003, hi = 20;
    const auto ticks = axis_ticks(lo, hi, true);
    EXPECT_EQ(labels_of(ticks), (std::vector<std::string>{"10⁻²", "10⁻¹", "10⁰", "10¹"}));
    EXPECT_LT(lo, 0.003);  // padded, not cut
    EXPECT_GT(hi, 20);
    for (const auto& [v, label] : ticks) EXPECT_TRUE(v >= lo && v <= hi) << v;
}

TEST(PlotAxis, AShortLogRangeLabelsTwoAndFive) {
    double lo = 4, hi = 64;  // one decade and a bit: 10 alone would leave the axis unreadable
    const auto labels = labels_of(axis_ticks(lo, hi, true));
    EXPECT_NE(std::find(labels.begin(), labels.end(), "20"), labels.end());
    EXPECT_NE(std::find(labels.begin(), labels.end(), "50"), labels.end());
}

TEST(PlotAxis, LinearTicksAreRoundSteps) {
    double lo = 0.13, hi = 0.91;
    EXPECT_EQ(labels_of(axis_ticks(lo, hi, false)), (std::vector<std::string>{"0", "0.2", "0.4", "0.6", "0.8", "1"}));
    EXPECT_DOUBLE_EQ(lo, 0);
    EXPECT_DOUBLE_EQ(hi, 1);
}

PlotFigure three_series() {
    PlotFigure f;
    PlotPanel p;
    p.title = "t";
    p.x.label = "x", p.y.label = "y";
    p.y.log = true;
    for (int s = 0; s < 3; ++s) {
        PlotSeries series;
        series.name = "series " + std::to_string(s);
        for (int i = 1; i <= 6; ++i) {
            series.x.push_back(i), series.y.push_back(std::pow(10.0, -i + s));
            series.labels.push_back("point " + std::to_string(s) + "." + std::to_string(i));
        }
        p.series.push_back(series);
    }
    f.panels = {p, p};
    return f;
}

TEST(PlotLayout, TheLegendIsBelowEveryDataMark) {
    const Canvas c = layout_plots(three_series());
    float lowest_data = 0;
    for (const LineCmd& l : c.lines)
        if (l.width > 2)  // series lines (the legend's own swatches are drawn below, at the legend)
            for (const auto& p : l.points) lowest_data = std::max(lowest_data, p[1]);
    float data_markers = 0;
    for (const MarkerCmd& m : c.markers) data_markers = std::max(data_markers, m.y);
    for (const TextCmd& t : c.texts)
        if (t.text.rfind("series ", 0) == 0) {
            EXPECT_GT(t.y, data_markers - 1e-3f) << t.text;  // the legend's markers are its lowest
            EXPECT_GE(t.y, lowest_data) << t.text;
        }
}

TEST(PlotLayout, PointLabelsNeverOverlap) {
    PlotFigure f = three_series();
    PlotSeries crowded;  // six points almost on top of each other: their labels must step aside or drop out
    crowded.name = "crowded";
    for (int i = 0; i < 6; ++i) {
        crowded.x.push_back(3 + 0.01 * i), crowded.y.push_back(1e-3 * (1 + 0.01 * i));
        crowded.labels.push_back("point c." + std::to_string(i));
    }
    f.panels[0].series.push_back(crowded);
    const Canvas c = layout_plots(f);
    std::vector<const TextCmd*> labels;
    for (const TextCmd& t : c.texts)
        if (t.text.rfind("point ", 0) == 0) labels.push_back(&t);
    ASSERT_FALSE(labels.empty());
    auto box = [](const TextCmd& t) {  // x0, x1, y0, y1 as the writers draw it
        const float w = Font::get().width(t.text, t.size);
        const float x0 = t.anchor == TextCmd::Anchor::End ? t.x - w : t.x;
        return std::array<float, 4>{x0, x0 + w, t.y - t.size, t.y + 3};
    };
    for (size_t a = 0; a < labels.size(); ++a)
        for (size_t b = a + 1; b < labels.size(); ++b) {
            const auto p = box(*labels[a]), q = box(*labels[b]);
            const bool overlap = p[0] < q[1] && q[0] < p[1] && p[2] < q[3] && q[2] < p[3];
            EXPECT_FALSE(overlap) << labels[a]->text << " / " << labels[b]->text;
        }
}

TEST(PlotLayout, RefusesSeriesOfDifferentLengths) {
    PlotFigure f = three_series();
    f.panels[0].series[1].y.pop_back();
    EXPECT_THROW(layout_plots(f), Error);
    PlotFigure g;
    EXPECT_THROW(layout_plots(g), Error);
}

TEST(ChartFigures, SweepCurvesKeepTheirBandAndSkipUnmeasuredValues) {
    std::vector<SweepCurve> curves = {{"Longformer", {{4, 0.5, 0.4, 0.6, 3}, {8, 0.2, 0.1, 0.3, 3}, {16, 0, 0, 0, 0}}}};
    const PlotFigure f = sweep_figure(curves, "window", *find_metric("rel_err_out"), true, 3);
    ASSERT_EQ(f.panels.size(), 1u);
    const PlotSeries& s = f.panels[0].series[0];
    EXPECT_EQ(s.x, (std::vector<double>{4, 8}));  // 16 had no sample: no point, no band
    EXPECT_EQ(s.y_lo, (std::vector<double>{0.4, 0.1}));
    EXPECT_EQ(s.y_hi, (std::vector<double>{0.6, 0.3}));
    EXPECT_TRUE(f.panels[0].x.log);
}

TEST(ChartFigures, ErrmapRingsTheFrontAndDrawsTheTimingSpread) {
    ErrorCostPoint a, b;
    a.variant = b.variant = "longformer";
    a.instance = "Longformer w = 8", b.instance = "Longformer w = 16";
    a.time_ms = 1, a.time_min_ms = 0.9, a.time_max_ms = 1.2, a.rel_err_out = 0.5, a.pareto = true;
    b.time_ms = 2, b.time_min_ms = 1.8, b.time_max_ms = 2.5, b.rel_err_out = 0.2, b.pareto = false;
    a.repeats = b.repeats = 5, a.time_clock = b.time_clock = "cpu";
    const PlotFigure f = errmap_figure({a, b}, CostAxis::Time, ErrorAxis::RelErrOut);
    const PlotSeries& s = f.panels[0].series[0];
    EXPECT_EQ(s.highlight, (std::vector<uint8_t>{1, 0}));
    EXPECT_EQ(s.x_lo, (std::vector<double>{0.9, 1.8}));
    EXPECT_EQ(s.x_hi, (std::vector<double>{1.2, 2.5}));
    EXPECT_EQ(s.labels, (std::vector<std::string>{"Longformer w = 8", "Longformer w = 16"}));
    EXPECT_NE(f.panels[0].x.label.find("CPU time"), std::string::npos);
    // FLOPs are exact: no bars.
    EXPECT_TRUE(errmap_figure({a, b}, CostAxis::Flops, ErrorAxis::RelErrOut).panels[0].series[0].x_lo.empty());
}

TEST(ChartFigures, HeadsGridHoldsEveryLayerAndHead) {
    LayerHeadMass m;
    m.layers = 2, m.heads = 3, m.n = 16;
    m.grids.push_back({"sink", "Sink s = 4", {0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, ""});
    m.grids.push_back({"svd", "SVD r = 4", {}, "no mask"});
    const PlotFigure f = heads_figure(m);
    ASSERT_EQ(f.panels.size(), 2u);
    EXPECT_EQ(f.panels[0].grid->values, (std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}));
    EXPECT_TRUE(std::all_of(f.panels[1].grid->values.begin(), f.panels[1].grid->values.end(), [](double v) { return std::isnan(v); }));
    EXPECT_FALSE(f.panels[1].lines.empty());  // says why it has no values
}

}  // namespace
}  // namespace attnscope::figure
