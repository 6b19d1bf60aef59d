// attnscope — the measures of the metrics a variant's run does not hold, taken through a text model: the encoder's
// sentence-embedding cosine and the decoder's perplexity, each with the variant in place of one layer's attention.
// The CLI's sweep and errmap and the GUI's Sweep and Error–cost panels all take them from here.
#pragma once
#include <string>
#include <vector>

#include "core/session/metric_sweep.h"

namespace attnscope {

/// The measure of `metric` ("embedding_cosine": an encoder folder; "perplexity": a decoder GGUF file) on the token ids
/// of a text, the variant replacing the attention of `layer` (every head). Throws Error when the model is of the
/// other kind (the message names the metric that fits it) or the metric is not measured through a model.
SweepEvaluator text_metric_measure(const std::string& metric, const std::string& model_path, std::vector<int> ids,
                                   int layer);

}  // namespace attnscope
