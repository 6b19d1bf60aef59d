// The safetensors reader converts F32/F16/BF16 and rejects truncated, oversized-header, wrong-offset and
// wrong-dtype files with messages that say what is wrong.
#include <gtest/gtest.h>

#include "core/data/npy.h"
#include "core/data/safetensors.h"
#include "core/data/tensor_import.h"
#include "core/backend/shared/random.h"
#include "tests/unit/text_test_util.h"

namespace attnscope::test {
namespace {

/// Expects SafetensorsFile(path) (and reading `tensor`, when given) to throw an Error containing `needle`.
void expect_error(const std::string& path, const std::string& needle, const std::string& tensor = "") {
    std::cout << "[case] " << path << " -> error containing '" << needle << "'\n";
    try {
        SafetensorsFile f(path);
        if (!tensor.empty()) f.read_float(tensor);
        ADD_FAILURE() << "no error for " << path;
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(Safetensors, ReadsF32F16Bf16AndMetadata) {
    TempDir dir("st");
    // F32 [1.5, -2], F16 [1, -0.5, 65504, 2^-24 (subnormal)], BF16 [3, -0.25]
    const std::string f32 = f32_bytes({1.5f, -2.0f});
    const std::string f16 = le_bytes(uint16_t{0x3C00}) + le_bytes(uint16_t{0xB800}) + le_bytes(uint16_t{0x7BFF}) +
                            le_bytes(uint16_t{0x0001});
    const std::string bf16 = le_bytes(uint16_t{0x4040}) + le_bytes(uint16_t{0xBE80});
    const std::string header =
        R"({"__metadata__":{"tokens":"[\"a\",\"b\"]"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
        R"("h":{"dtype":"F16","shape":[2,2],"data_offsets":[8,16]},"b":{"dtype":"BF16","shape":[2],"data_offsets":[16,20]}})";
    write_bytes(dir.file("ok.safetensors"), safetensors_bytes(header, f32 + f16 + bf16));
    std::cout << "[case] F32/F16/BF16 round trip\n";
    const SafetensorsFile f(dir.file("ok.safetensors"));
    EXPECT_EQ(f.names(), (std::vector<std::string>{"a", "b", "h"}));
    EXPECT_EQ(f.read_float("a"), (std::vector<float>{1.5f, -2.0f}));
    EXPECT_EQ(f.read_float("h"), (std::vector<float>{1.0f, -0.5f, 65504.0f, std::ldexp(1.0f, -24)}));
    EXPECT_EQ(f.read_float("b"), (std::vector<float>{3.0f, -0.25f}));
    EXPECT_EQ(f.entry("h").shape, (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(f.metadata().at("tokens"), "[\"a\",\"b\"]");
    EXPECT_THROW(f.entry("zzz"), Error);
}

// Found by the tensor_import fuzz target: a tensor with a 0 in its shape reached memcpy with a null destination
// (undefined behaviour, reported by UBSan). It reads as no values, and the importer refuses the shape.
TEST(Safetensors, ZeroElementTensorReadsEmptyAndImportRefusesIt) {
    TempDir dir("st");
    const std::string q = f32_bytes({0.5f, -1.0f, 2.0f, 0.25f, 3.0f, -0.5f});
    const std::string header =
        R"({"q":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},"k":{"dtype":"F32","shape":[0,3],"data_offsets":[24,24]},)"
        R"("v":{"dtype":"F32","shape":[2,3],"data_offsets":[24,48]}})";
    write_bytes(dir.file("empty_k.safetensors"), safetensors_bytes(header, q + q));
    std::cout << "[case] F32 tensor of shape (0, 3): no values; importing it is an Error naming k\n";
    const SafetensorsFile f(dir.file("empty_k.safetensors"));
    EXPECT_TRUE(f.read_float("k").empty());
    try {
        load_tensor_input(dir.file("empty_k.safetensors"));
        ADD_FAILURE() << "a (0, 3) key tensor was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'k'"), std::string::npos) << e.what();
    }
}

TEST(Safetensors, RejectsTruncatedFiles) {
    TempDir dir("st");
    write_bytes(dir.file("tiny.safetensors"), "abc");
    expect_error(dir.file("tiny.safetensors"), "truncated: 3 bytes");
    const std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    // Header length claims 10 bytes more than the file holds.
    write_bytes(dir.file("short.safetensors"), safetensors_bytes(header, "", static_cast<int64_t>(header.size()) + 10));
    expect_error(dir.file("short.safetensors"), "is truncated: the header declares");
    // Data cut short: the tensor's offsets run past the end.
    write_bytes(dir.file("cut.safetensors"), safetensors_bytes(header, f32_bytes({1.0f})));
    expect_error(dir.file("cut.safetensors"), "lie outside the 4-byte data section");
}

TEST(Safetensors, RejectsOversizedHeader) {
    TempDir dir("st");
    write_bytes(dir.file("huge.safetensors"), safetensors_bytes("{}", "", int64_t{1} << 40));
    expect_error(dir.file("huge.safetensors"), "oversized header of 1099511627776 bytes");
}

TEST(Safetensors, RejectsWrongOffsets) {
    TempDir dir("st");
    const std::string data = f32_bytes({1, 2, 3, 4});
    write_bytes(dir.file("past.safetensors"),
                safetensors_bytes(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}})", data));
    expect_error(dir.file("past.safetensors"), "data_offsets [8, 24] lie outside the 16-byte data section");
    write_bytes(dir.file("reversed.safetensors"),
                safetensors_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}})", data));
    expect_error(dir.file("reversed.safetensors"), "lie outside");
    write_bytes(dir.file("span.safetensors"),
                safetensors_bytes(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}})", data));
    expect_error(dir.file("span.safetensors"), "span 16 bytes but shape (3) of F32 needs 12");
    write_bytes(dir.file("negative.safetensors"),
                safetensors_bytes(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[-4,12]}})", data));
    expect_error(dir.file("negative.safetensors"), "data_offsets is not [begin, end]");
}

TEST(Safetensors, RejectsWrongDtypeAndBadJson) {
    TempDir dir("st");
    write_bytes(dir.file("int.safetensors"),
                safetensors_bytes(R"({"q":{"dtype":"I64","shape":[2],"data_offsets":[0,16]}})", std::string(16, '\0')));
    expect_error(dir.file("int.safetensors"), "has dtype I64; attnscope reads floating-point tensors only", "q");
    write_bytes(dir.file("odd.safetensors"),
                safetensors_bytes(R"({"q":{"dtype":"F7","shape":[2],"data_offsets":[0,8]}})", std::string(8, '\0')));
    expect_error(dir.file("odd.safetensors"), "unknown dtype 'F7'");
    write_bytes(dir.file("json.safetensors"), safetensors_bytes("{not json", ""));
    expect_error(dir.file("json.safetensors"), "header that is not valid JSON");
    write_bytes(dir.file("list.safetensors"), safetensors_bytes("[1,2]", ""));
    expect_error(dir.file("list.safetensors"), "not a JSON object");
    expect_error(dir.file("absent.safetensors"), "cannot open");
}

TEST(Safetensors, MutatedFilesNeverCrash) {
    // Every single-byte corruption of the first 160 bytes (header and data), and random truncations, of a
    // valid file and of a valid .npy: each must load or throw Error, never crash or read out of bounds.
    TempDir dir("fuzz");
    const std::string header =
        R"({"q":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]},"v":{"dtype":"F32","shape":[3],"data_offsets":[8,20]}})";
    const std::string st = safetensors_bytes(header, std::string(8, '\x3c') + f32_bytes({1, 2, 3}));
    const std::string npy = npy_bytes("<f4", "(2, 3)", f32_bytes({1, 2, 3, 4, 5, 6}));
    int errors = 0, loads = 0;
    const std::string path = dir.file("m.safetensors"), npy_path = dir.file("m.npy");
    for (int trial = 0; trial < 300; ++trial) {
        std::string a = st, b = npy;
        const uint64_t r = rng::bits(7, 0, static_cast<uint64_t>(trial));
        if (trial % 5 == 4) {
            a.resize(r % a.size());
            b.resize(r % b.size());
        } else {
            a[(r >> 8) % std::min<size_t>(a.size(), 160)] = static_cast<char>(r & 0xFF);
            b[(r >> 8) % b.size()] = static_cast<char>(r & 0xFF);
        }
        write_bytes(path, a);
        write_bytes(npy_path, b);
        try {
            const SafetensorsFile f(path);
            for (const std::string& name : f.names()) f.read_float(name);
            ++loads;
        } catch (const Error&) {
            ++errors;
        }
        try {
            read_npy(npy_path);
            ++loads;
        } catch (const Error&) {
            ++errors;
        }
    }
    std::cout << "[case] 300 mutated safetensors + npy files: " << loads << " loaded, " << errors << " clear errors\n";
    EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace attnscope::test
