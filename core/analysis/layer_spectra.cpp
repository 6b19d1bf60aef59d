#include "core/analysis/layer_spectra.h"

#include <algorithm>

#include "core/data/text_input.h"
#include "core/analysis/spectrum.h"

namespace attnscope {

double LayerHeadSpectra::at(int layer, int head, int k) const {
    if (layer < 0 || layer >= layers || head < 0 || head >= heads) return 0;
    const auto& c = cumulative[static_cast<size_t>(layer) * heads + head];
    if (c.empty()) return 0;
    return c[static_cast<size_t>(std::clamp(k, 1, static_cast<int>(c.size())) - 1)];
}

std::optional<LayerHeadSpectra> text_layer_spectra(const TextInputSpec& spec, const std::function<bool()>& cancelled) {
    auto stop = [&] { return cancelled && cancelled(); };
    const auto probs = text_layer_probs(spec, cancelled);
    if (!probs) return std::nullopt;
    const TextInput& in = probs->input;
    const auto& out = *probs;
    LayerHeadSpectra s;
    s.layers = static_cast<int>(out.probs.size());
    s.heads = s.layers > 0 ? out.probs[0].heads() : 0;
    s.n = static_cast<int>(in.token_ids.size());
    s.tokens = in.heads.tokens;
    s.truncated = in.truncated;
    s.cumulative.reserve(static_cast<size_t>(s.layers) * s.heads);
    for (int l = 0; l < s.layers; ++l)
        for (int h = 0; h < s.heads; ++h) {
            if (stop()) return std::nullopt;
            s.cumulative.push_back(compute_spectrum(out.probs[static_cast<size_t>(l)], h).cumulative);
        }
    return s;
}

}  // namespace attnscope
