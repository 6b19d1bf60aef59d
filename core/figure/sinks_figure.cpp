// attnscope — the attention-sinks figure (see chart_figures.h).
#include <algorithm>

#include "core/analysis/key_attention.h"
#include "core/error.h"
#include "core/figure/chart_figures.h"

namespace attnscope::figure {

PlotFigure sinks_figure(const std::vector<std::string>& tokens, const std::vector<double>& received,
                        const std::vector<double>& uniform_share, bool causal, const std::string& over) {
    const size_t n = received.size();
    if (n == 0) throw Error("a sinks figure needs at least one key");
    if (uniform_share.size() != n)
        throw Error("a sinks figure has " + std::to_string(uniform_share.size()) + " uniform shares for " + std::to_string(n) + " keys");
    if (!tokens.empty() && tokens.size() != n)
        throw Error("a sinks figure has " + std::to_string(tokens.size()) + " tokens for " + std::to_string(n) + " keys");
    PlotPanel p;
    p.title = "Attention each key receives";
    const std::string baseline = causal ? "uniform over keys j ≤ i" : "uniform 1/n";
    p.subtitle = "mean exact softmax weight over " + over + "; dashed: the share under " + baseline +
                 (causal ? " (key j gets (1/n)·Σ_{i≥j} 1/(i+1))" : "");
    p.x.label = tokens.empty() ? "key position" : "key (token)";
    p.y.label = "mean attention received";
    p.y.min = 0;
    // One series per kind of token, so the legend says what the colours mean ([CLS]/[SEP] and punctuation are where
    // trained encoders park weight).
    const TokenKind kinds[] = {TokenKind::Special, TokenKind::Punctuation, TokenKind::Word};
    for (TokenKind kind : tokens.empty() ? std::vector<TokenKind>{TokenKind::Word} : std::vector<TokenKind>(kinds, kinds + 3)) {
        PlotSeries s;
        s.name = tokens.empty() ? "key" : std::string(token_kind_name(kind)) + " tokens";
        s.bars = true, s.line = false, s.markers = false;
        for (size_t j = 0; j < n; ++j)
            if (tokens.empty() || token_kind(tokens[j]) == kind) s.x.push_back(double(j)), s.y.push_back(received[j]);
        if (!s.x.empty()) p.series.push_back(std::move(s));
    }
    PlotSeries uniform;
    uniform.name = baseline, uniform.ink = PlotSeries::Ink::Muted, uniform.dashed = true, uniform.markers = false;
    if (causal) {
        for (size_t j = 0; j < n; ++j) uniform.x.push_back(double(j)), uniform.y.push_back(uniform_share[j]);
    } else {
        uniform.x = {-0.5, double(n) - 0.5}, uniform.y = {uniform_share[0], uniform_share[0]};
    }
    p.series.push_back(std::move(uniform));
    for (size_t j = 0; j < n; ++j) {
        p.x.ticks.push_back(double(j));
        p.x.tick_labels.push_back(tokens.empty() ? std::to_string(j) : tokens[j]);
    }
    p.x.min = -0.5, p.x.max = double(n) - 0.5;
    const auto top = std::max_element(received.begin(), received.end());  // the most received, as the panel ranks
    const size_t j = size_t(top - received.begin());
    p.lines.push_back("largest: " + (tokens.empty() ? "position " + std::to_string(j) : "'" + tokens[j] + "' (position " + std::to_string(j) + ")") +
                      " receives " + std::to_string(*top / uniform_share[j]).substr(0, 5) + "× its " + baseline + " share");
    PlotFigure f;
    f.panels.push_back(std::move(p));
    return f;
}

}  // namespace attnscope::figure
