// attnscope — labelled log-axis ticks (see log_ticks.h).
#include "app/gui/log_ticks.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace attnscope::gui {

void setup_log_ticks(ImAxis axis, double lo, double hi) {
    if (!(lo > 0) || !(hi > lo) || hi / lo >= 100) return;
    std::vector<double> ticks;
    for (int e = int(std::floor(std::log10(lo))) - 1; e <= int(std::ceil(std::log10(hi))); ++e)
        for (double m : {1.0, 2.0, 5.0}) {
            const double v = m * std::pow(10.0, e);
            if (v >= lo * 0.999 && v <= hi * 1.001) ticks.push_back(v);
        }
    if (ticks.size() < 2) {  // a range inside one 1-2-5 step: its ends
        ticks = {lo, hi};
    }
    std::vector<std::string> text;
    std::vector<const char*> labels;
    for (double v : ticks) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3g", v);
        text.push_back(buf);
    }
    for (const std::string& t : text) labels.push_back(t.c_str());
    ImPlot::SetupAxisTicks(axis, ticks.data(), int(ticks.size()), labels.data());  // ImPlot copies the labels
}

}  // namespace attnscope::gui
