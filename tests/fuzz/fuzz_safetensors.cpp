// Fuzz target: the safetensors reader. Bad input must end in attnscope::Error; every entry of an accepted file
// lies inside the file and converts to exactly its element count.
#include "core/data/safetensors.h"
#include "core/error.h"
#include "tests/fuzz/fuzz_util.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = fuzz::write_scratch("a.safetensors", fuzz::as_text(data, size));
    try {
        const SafetensorsFile file(path);
        for (const std::string& name : file.names()) {
            const SafetensorsEntry& e = file.entry(name);
            ATTNSCOPE_FUZZ_REQUIRE(e.offset + e.bytes <= size);
            try {
                ATTNSCOPE_FUZZ_REQUIRE(int64_t(file.read_float(name).size()) == e.elements());
            } catch (const Error&) {  // a non-float dtype is refused by read_float, not by the reader
            }
        }
    } catch (const Error&) {
    }
    return 0;
}
