// attnscope — a decoder's text as attention input: llama.cpp's tokens shown readably, one pass up to the asked layer, and
// that pass kept for the next edit (typing at the end of a text recomputes only the new positions).
#pragma once
#include "core/data/text_input.h"

namespace attnscope {

struct DecoderModel;

/// encode_text_layers for a decoder: tokens (cut to its context when spec.truncate), Q, K, V of layers 0 … spec.layer
/// with K and V expanded to the query heads (each reading its group's), causal. Throws Error like load_text_input.
TextLayers decode_text_layers(const DecoderModel& model, const TextInputSpec& spec);

}  // namespace attnscope
