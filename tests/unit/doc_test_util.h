// attnscope tests — reading the docs that tests hold against the code's tables (reasons, metrics).
#pragma once
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace attnscope::test {

/// The text of docs/<name>; a test fails when it cannot be read.
inline std::string read_doc(const std::string& name) {
    const std::string path = std::string(ATTNSCOPE_TEST_DATA_DIR) + "/../../docs/" + name;
    std::ifstream in(path);
    EXPECT_TRUE(in) << "cannot read " << path;
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace attnscope::test
