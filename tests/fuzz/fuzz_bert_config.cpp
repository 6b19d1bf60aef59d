// Fuzz target: a model folder's config.json. Bad input must end in attnscope::Error; an accepted config describes
// an encoder that can be built (positive sizes, hidden divisible by heads).
#include "core/data/bert_config.h"
#include "core/error.h"
#include "tests/fuzz/fuzz_util.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::write_scratch("model/config.json", fuzz::as_text(data, size));
    try {
        const BertConfig c = read_bert_config((fuzz::scratch_dir() / "model").string());
        ATTNSCOPE_FUZZ_REQUIRE(c.vocab_size > 0 && c.hidden > 0 && c.layers > 0 && c.heads > 0);
        ATTNSCOPE_FUZZ_REQUIRE(c.hidden % c.heads == 0 && c.intermediate > 0 && c.max_positions > 0);
        ATTNSCOPE_FUZZ_REQUIRE(c.layer_norm_eps > 0 && c.layer_norm_eps <= 1);
    } catch (const Error&) {
    }
    return 0;
}
