// Fuzz target: the .npy reader. Bad input must end in attnscope::Error; an accepted array must hold exactly as
// many elements as its shape says.
#include "core/data/npy.h"
#include "core/error.h"
#include "tests/fuzz/fuzz_util.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = fuzz::write_scratch("a.npy", fuzz::as_text(data, size));
    try {
        const NpyArray a = read_npy(path);
        int64_t elements = 1;
        for (int64_t dim : a.shape) {
            ATTNSCOPE_FUZZ_REQUIRE(dim >= 0);
            elements *= dim;
        }
        ATTNSCOPE_FUZZ_REQUIRE(int64_t(a.data.size()) == elements);
    } catch (const Error&) {
    }
    return 0;
}
