#include "core/session/text_metric_measure.h"

#include "core/data/model_paths.h"
#include "core/session/decoder_whatif.h"
#include "core/session/text_whatif.h"

namespace attnscope {

SweepEvaluator text_metric_measure(const std::string& metric, const std::string& model_path, std::vector<int> ids,
                                   int layer) {
    const ModelChoice model = resolve_model(model_path);
    if (metric == "embedding_cosine") {
        if (model.decoder)
            throw Error("embedding_cosine compares an encoder's sentence embeddings, and " + model.path +
                        " is a decoder: measure perplexity instead, or choose the encoder (minilm)");
        return embedding_cosine_measure(load_text_model(model.path), std::move(ids), layer);
    }
    if (metric == "perplexity") {
        if (!model.decoder)
            throw Error("perplexity is a decoder's next-token loss, and " + model.path +
                        " is an encoder: choose the decoder (smollm2), or measure embedding_cosine");
        return perplexity_measure(load_decoder_model(model.path), std::move(ids), LayerSpan{layer, layer});
    }
    throw Error("'" + metric + "' is not measured through a text model (embedding_cosine, perplexity)");
}

}  // namespace attnscope
