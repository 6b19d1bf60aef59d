// attnscope — the sample texts of assets/samples/, embedded in the binary (no data files at run time).
#pragma once
#include <string>
#include <vector>

namespace attnscope {

/// One sample text.
struct SampleText {
    std::string id;    // file stem, e.g. "attention"
    std::string text;  // UTF-8, trailing newline removed
};

/// Every sample; the first is the default (≈ 80 tokens with all-MiniLM-L6-v2); the last, ferry, is the long one
/// (≈ 4 700 SmolLM2 tokens) the StreamingLLM measurement needs.
const std::vector<SampleText>& sample_texts();
/// The default sample's text.
const std::string& default_sample_text();

}  // namespace attnscope
