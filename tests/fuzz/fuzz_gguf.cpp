// Fuzz target: loading a GGUF decoder from its bytes — ggml's reader, the llama.* metadata, llama.cpp's tokenizer and
// the dequantised weights (decoder_model_from, what load_decoder_model runs on a mapped file). Bad input must end in
// attnscope::Error; every tensor of an accepted file lies inside it, and a model that loads tokenizes text into ids
// of its vocabulary and runs a short forward pass to logits of the right shape.
#include "core/data/gguf_file.h"
#include "core/data/text_model.h"
#include "core/error.h"
#include "tests/fuzz/fuzz_util.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const auto file = GgufFile::parse(std::vector<uint8_t>(data, data + size), "fuzz.gguf");
        for (const GgufTensorInfo& t : file->tensors()) ATTNSCOPE_FUZZ_REQUIRE(t.offset <= size && t.bytes <= size - t.offset);
        const DecoderModel model = decoder_model_from(*file);
        const std::vector<int> ids = model.tokenizer.encode("Hi, you 12");
        for (int id : ids) {
            ATTNSCOPE_FUZZ_REQUIRE(id >= 0 && id < model.tokenizer.vocab_size());
            (void)model.tokenizer.display(id);
        }
        const LlamaConfig& c = model.decoder.config();
        if (ids.empty() || int(ids.size()) > c.context) return 0;
        DecoderOptions options;
        options.logits = true;
        const DecoderOutput out = model.decoder.forward(ids, options);
        ATTNSCOPE_FUZZ_REQUIRE(out.logits.rows() == int(ids.size()) && out.logits.cols() == c.vocab);
        ATTNSCOPE_FUZZ_REQUIRE(int(out.Q.size()) == c.layers);
    } catch (const Error&) {
    }
    return 0;
}
