#include "core/data/samples.h"

#include "attnscope_embedded_samples.h"

namespace attnscope {

namespace {

SampleText make(const char* id, const char* text) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
    return {id, t};
}

}  // namespace

const std::vector<SampleText>& sample_texts() {
    static const std::vector<SampleText> samples = {make("attention", assets::kSampleAttention),
                                                    make("lighthouse", assets::kSampleLighthouse),
                                                    make("recipe", assets::kSampleRecipe),
                                                    make("harbour", assets::kSampleHarbour),
                                                    make("ferry", assets::kSampleFerry)};
    return samples;
}

const std::string& default_sample_text() { return sample_texts().front().text; }

}  // namespace attnscope
