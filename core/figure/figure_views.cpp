#include "core/figure/figure_views.h"

#include <array>
#include <vector>

#include "core/format.h"

namespace attnscope::figure {

namespace {

constexpr std::array kViews = {
    FigureViewSpec{"weights", false, ""},
    FigureViewSpec{"mask", false, "tinted by why each cell is allowed"},
    FigureViewSpec{"difference", false, "to exact softmax"},
    FigureViewSpec{"buckets", false, "an lsh round's bucket order, boundaries and strips"},
    FigureViewSpec{"spectrum", true, ""},
    FigureViewSpec{"sweep", true, ""},
    FigureViewSpec{"errmap", true, ""},
    FigureViewSpec{"heads", true, ""},
    FigureViewSpec{"sinks", true, ""},
    FigureViewSpec{"performance", true, ""},
    FigureViewSpec{"perplexity", true, "a decoder's per-position next-token loss with each instance in its attention"},
};

}  // namespace

std::span<const FigureViewSpec> figure_views() { return kViews; }

const FigureViewSpec* find_figure_view(const std::string& id) {
    const std::string name = id == "diff" ? "difference" : id;
    for (const FigureViewSpec& v : kViews)
        if (name == v.id) return &v;
    return nullptr;
}

std::string figure_view_names(bool charts, bool what, const std::string& last) {
    std::vector<std::string> names;
    for (const FigureViewSpec& v : kViews)
        if (v.chart == charts) names.push_back(std::string(v.id) + (what && *v.what ? std::string(" (") + v.what + ")" : ""));
    return join_words(names, last);
}

}  // namespace attnscope::figure
