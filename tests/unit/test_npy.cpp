// The .npy reader accepts little-endian f4/f8 in C order and rejects everything else clearly.
#include <gtest/gtest.h>

#include "core/data/npy.h"
#include "tests/unit/text_test_util.h"

namespace attnscope::test {
namespace {

void expect_npy_error(const std::string& path, const std::string& needle) {
    std::cout << "[case] " << path << " -> error containing '" << needle << "'\n";
    try {
        read_npy(path);
        ADD_FAILURE() << "no error for " << path;
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(Npy, ReadsF4AndF8) {
    TempDir dir("npy");
    write_bytes(dir.file("a.npy"), npy_bytes("<f4", "(2, 3)", f32_bytes({1, 2, 3, 4, 5, 6})));
    std::string f8;
    for (double v : {0.5, -1.25}) f8 += le_bytes(v);
    write_bytes(dir.file("b.npy"), npy_bytes("<f8", "(2,)", f8));
    std::cout << "[case] <f4 (2, 3) and <f8 (2,)\n";
    const NpyArray a = read_npy(dir.file("a.npy"));
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(a.data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
    const NpyArray b = read_npy(dir.file("b.npy"));
    EXPECT_EQ(b.shape, (std::vector<int64_t>{2}));
    EXPECT_EQ(b.data, (std::vector<float>{0.5f, -1.25f}));
}

TEST(Npy, RejectsUnsupportedAndCorrupt) {
    TempDir dir("npy");
    write_bytes(dir.file("big.npy"), npy_bytes(">f4", "(2,)", std::string(8, '\0')));
    expect_npy_error(dir.file("big.npy"), "dtype '>f4'");
    write_bytes(dir.file("int.npy"), npy_bytes("<i8", "(2,)", std::string(16, '\0')));
    expect_npy_error(dir.file("int.npy"), "dtype '<i8'");
    write_bytes(dir.file("fortran.npy"), npy_bytes("<f4", "(2, 2)", f32_bytes({1, 2, 3, 4}), true));
    expect_npy_error(dir.file("fortran.npy"), "Fortran (column-major) order");
    write_bytes(dir.file("short.npy"), npy_bytes("<f4", "(4, 4)", f32_bytes({1, 2, 3})));
    expect_npy_error(dir.file("short.npy"), "is truncated: shape (4, 4) of <f4 needs 64 bytes");
    write_bytes(dir.file("magic.npy"), "PK\x03\x04 not an npy file");
    expect_npy_error(dir.file("magic.npy"), "magic bytes");
    write_bytes(dir.file("header.npy"), std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 18));
    expect_npy_error(dir.file("header.npy"), "is truncated: the header declares 255 bytes");
}

}  // namespace
}  // namespace attnscope::test
