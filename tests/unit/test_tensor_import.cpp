// --tensors: Q, K, V from a .safetensors file or a folder of .npy files, with shape, NaN/Inf and layout checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/data/tensor_import.h"
#include "tests/unit/text_test_util.h"

namespace attnscope::test {
namespace {

void expect_import_error(const std::string& path, const std::string& needle) {
    std::cout << "[case] --tensors " << path << " -> error containing '" << needle << "'\n";
    try {
        load_tensor_input(path);
        ADD_FAILURE() << "no error for " << path;
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

std::vector<float> iota(int count, float start) {
    std::vector<float> v(static_cast<size_t>(count));
    for (int k = 0; k < count; ++k) v[static_cast<size_t>(k)] = start + 0.5f * static_cast<float>(k);
    return v;
}

TEST(TensorImport, NpyFolderWithTokens) {
    TempDir dir("npyq");
    // n = 3, d = 2 for Q and K, dv = 4 for V: one head.
    write_bytes(dir.file("q.npy"), npy_bytes("<f4", "(3, 2)", f32_bytes(iota(6, 0))));
    write_bytes(dir.file("k.npy"), npy_bytes("<f4", "(3, 2)", f32_bytes(iota(6, 10))));
    std::string v8;
    for (float x : iota(12, -3)) v8 += le_bytes(static_cast<double>(x));
    write_bytes(dir.file("v.npy"), npy_bytes("<f8", "(3, 4)", v8));
    write_bytes(dir.file("tokens.txt"), "[CLS]\nhello\n[SEP]\n");
    std::cout << "[case] folder q,k (3, 2) f4, v (3, 4) f8, tokens.txt\n";
    const Heads h = load_tensor_input(dir.path().string());
    EXPECT_EQ(h.heads(), 1);
    EXPECT_EQ(h.n(), 3);
    EXPECT_EQ(h.d(), 2);
    EXPECT_EQ(h.dv(), 4);
    EXPECT_FLOAT_EQ(h.Q.at(0, 2, 1), 2.5f);
    EXPECT_FLOAT_EQ(h.K.at(0, 1, 0), 11.0f);
    EXPECT_FLOAT_EQ(h.V.at(0, 2, 3), 2.5f);
    EXPECT_EQ(h.tokens, (std::vector<std::string>{"[CLS]", "hello", "[SEP]"}));
    EXPECT_EQ(h.source, "tensors:" + dir.path().string());
}

TEST(TensorImport, SafetensorsWithHeadsAndMetadataTokens) {
    TempDir dir("stq");
    // (H, n, d) = (2, 2, 3): 12 floats = 48 bytes per tensor.
    const std::string header =
        R"({"__metadata__":{"tokens":"[\"a\",\"b\"]"},"q":{"dtype":"F32","shape":[2,2,3],"data_offsets":[0,48]},)"
        R"("k":{"dtype":"F32","shape":[2,2,3],"data_offsets":[48,96]},"v":{"dtype":"F32","shape":[2,2,3],"data_offsets":[96,144]}})";
    write_bytes(dir.file("qkv.safetensors"),
                safetensors_bytes(header, f32_bytes(iota(12, 0)) + f32_bytes(iota(12, 1)) + f32_bytes(iota(12, 2))));
    std::cout << "[case] safetensors q, k, v (2, 2, 3) with metadata tokens\n";
    const Heads h = load_tensor_input(dir.file("qkv.safetensors"));
    EXPECT_EQ(h.heads(), 2);
    EXPECT_EQ(h.n(), 2);
    EXPECT_EQ(h.d(), 3);
    EXPECT_FLOAT_EQ(h.Q.at(1, 1, 2), 5.5f);
    EXPECT_FLOAT_EQ(h.V.at(1, 0, 0), 5.0f);
    EXPECT_EQ(h.tokens, (std::vector<std::string>{"a", "b"}));
}

TEST(TensorImport, RejectsBadInputs) {
    TempDir dir("badq");
    const std::filesystem::path nan_dir = dir.path() / "nan";
    std::filesystem::create_directories(nan_dir);
    std::vector<float> q = iota(6, 0);
    q[3] = std::numeric_limits<float>::quiet_NaN();
    write_bytes((nan_dir / "q.npy").string(), npy_bytes("<f4", "(3, 2)", f32_bytes(q)));
    write_bytes((nan_dir / "k.npy").string(), npy_bytes("<f4", "(3, 2)", f32_bytes(iota(6, 0))));
    write_bytes((nan_dir / "v.npy").string(), npy_bytes("<f4", "(3, 2)", f32_bytes(iota(6, 0))));
    expect_import_error(nan_dir.string(), "q.npy holds NaN at (0, 1, 1)");

    const std::filesystem::path inf_dir = dir.path() / "inf";
    std::filesystem::create_directories(inf_dir);
    std::vector<float> v = iota(6, 0);
    v[5] = std::numeric_limits<float>::infinity();
    write_bytes((inf_dir / "q.npy").string(), npy_bytes("<f4", "(3, 2)", f32_bytes(iota(6, 0))));
    write_bytes((inf_dir / "k.npy").string(), npy_bytes("<f4", "(3, 2)", f32_bytes(iota(6, 0))));
    write_bytes((inf_dir / "v.npy").string(), npy_bytes("<f4", "(3, 2)", f32_bytes(v)));
    expect_import_error(inf_dir.string(), "v.npy holds Inf at (0, 2, 1)");

    const std::filesystem::path shape_dir = dir.path() / "shape";
    std::filesystem::create_directories(shape_dir);
    write_bytes((shape_dir / "q.npy").string(), npy_bytes("<f4", "(3, 2)", f32_bytes(iota(6, 0))));
    write_bytes((shape_dir / "k.npy").string(), npy_bytes("<f4", "(2, 3)", f32_bytes(iota(6, 0))));
    write_bytes((shape_dir / "v.npy").string(), npy_bytes("<f4", "(3, 2)", f32_bytes(iota(6, 0))));
    expect_import_error(shape_dir.string(), "K (1, 2, 3) must have the shape of Q (1, 3, 2)");
    write_bytes((shape_dir / "k.npy").string(), npy_bytes("<f4", "(6,)", f32_bytes(iota(6, 0))));
    expect_import_error(shape_dir.string(), "k.npy has shape (6); expected (n, d) for one head or (H, n, d)");

    const std::filesystem::path missing_dir = dir.path() / "missing";
    std::filesystem::create_directories(missing_dir);
    write_bytes((missing_dir / "q.npy").string(), npy_bytes("<f4", "(3, 2)", f32_bytes(iota(6, 0))));
    expect_import_error(missing_dir.string(), "the folder has no k.npy");

    write_bytes(dir.file("qk.safetensors"),
                safetensors_bytes(R"({"q":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]},)"
                                  R"("k":{"dtype":"F32","shape":[1,2],"data_offsets":[8,16]}})",
                                  f32_bytes({1, 2, 3, 4})));
    expect_import_error(dir.file("qk.safetensors"), "has no tensor 'v'");
    write_bytes(dir.file("data.txt"), "1 2 3");
    expect_import_error(dir.file("data.txt"), "is neither a .safetensors file nor a folder");
    expect_import_error(dir.file("nowhere.safetensors"), "does not exist");
}

}  // namespace
}  // namespace attnscope::test
