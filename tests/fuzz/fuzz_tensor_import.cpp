// Fuzz target: bring-your-own tensors, both layouts. The first byte picks the layout: even → one .safetensors
// file (the rest of the input); odd → a folder whose q.npy, k.npy, v.npy and tokens.txt are the parts of the rest
// separated by "\n@@\n". Bad input must end in attnscope::Error; accepted heads are finite and consistent.
#include <cmath>

#include "core/data/tensor_import.h"
#include "core/error.h"
#include "tests/fuzz/fuzz_util.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string_view rest = fuzz::as_text(data + 1, size - 1);
    std::string path;
    if (data[0] % 2 == 0) {
        path = fuzz::write_scratch("file/qkv.safetensors", rest);
    } else {
        std::filesystem::remove_all(fuzz::scratch_dir() / "folder");
        const auto parts = fuzz::split_parts(rest, "\n@@\n");
        const char* names[] = {"q.npy", "k.npy", "v.npy", "tokens.txt"};
        for (size_t k = 0; k < parts.size() && k < 4; ++k) fuzz::write_scratch(std::string("folder/") + names[k], parts[k]);
        path = (fuzz::scratch_dir() / "folder").string();
    }
    try {
        const Heads h = load_tensor_input(path);
        ATTNSCOPE_FUZZ_REQUIRE(h.heads() >= 1 && h.n() >= 1 && h.d() >= 1 && h.dv() >= 1);
        for (int64_t k = 0; k < h.Q.size(); ++k) ATTNSCOPE_FUZZ_REQUIRE(std::isfinite(h.Q.data()[k]));
        ATTNSCOPE_FUZZ_REQUIRE(h.tokens.empty() || int(h.tokens.size()) == h.n());
    } catch (const Error&) {
    }
    return 0;
}
