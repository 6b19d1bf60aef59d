// The GUI's input paths through the worker: loaded tensors (Input → "Loaded tensors"), text longer than the
// model's positions (the truncate action), pooled differences without an n×n difference matrix, and the
// layers × heads spectra of a text (Spectrum panel heatmap).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>

#include "core/analysis/layer_spectra.h"
#include "core/analysis/spectrum.h"
#include "core/backend/factory/make_backend.h"
#include "core/session/worker.h"
#include "tests/unit/text_test_util.h"

namespace attnscope {
namespace {

using test::f32_bytes;
using test::npy_bytes;
using test::TempDir;
using test::write_bytes;

std::vector<float> ramp(int count, float start, float step) {
    std::vector<float> v(static_cast<size_t>(count));
    for (int k = 0; k < count; ++k) v[static_cast<size_t>(k)] = start + step * float(k);
    return v;
}

RunBatchRequest tensors_batch(const std::string& path) {
    RunBatchRequest r;
    r.input.mode = InputMode::Tensors;
    r.input.tensors_path = path;
    r.variants = {parse_variant_request("full", {})};
    r.view_size = 64;
    return r;
}

TEST(GuiInputs, TensorsFromANpyFolderOrOneOfItsFiles) {
    std::printf("[case] Tensors mode: q/k/v.npy (2, 5, 3) float32 + tokens.txt, by folder and by q.npy\n");
    TempDir dir("gui-npy");
    const std::vector<float> q = ramp(30, -1.0f, 0.07f);
    write_bytes(dir.file("q.npy"), npy_bytes("<f4", "(2, 5, 3)", f32_bytes(q)));
    write_bytes(dir.file("k.npy"), npy_bytes("<f4", "(2, 5, 3)", f32_bytes(ramp(30, 0.5f, -0.05f))));
    write_bytes(dir.file("v.npy"), npy_bytes("<f4", "(2, 5, 4)", f32_bytes(ramp(40, 0.0f, 0.1f))));
    write_bytes(dir.file("tokens.txt"), "a\nb\nc\nd\ne\n");
    auto backend = make_backend("cpu");
    for (const std::string& path : {dir.path().string(), dir.file("q.npy")}) {
        const auto s = run_batch(tensors_batch(path), *backend, nullptr);
        ASSERT_TRUE(s);
        ASSERT_TRUE(s->input_error.empty()) << path << ": " << s->input_error;
        EXPECT_EQ(s->heads->heads(), 2);
        EXPECT_EQ(s->heads->n(), 5);
        EXPECT_EQ(s->heads->d(), 3);
        EXPECT_EQ(s->heads->dv(), 4);
        ASSERT_EQ(s->heads->tokens.size(), 5u);
        EXPECT_EQ(s->heads->tokens[2], "c");
        // The very float written (recomputing −1 + 0.07·15 differs by an ulp between optimisation levels); C order:
        // (h, i, j) → h·15 + i·3 + j, so a loader that transposed or skipped a head reads another element.
        EXPECT_EQ(s->heads->Q.at(1, 0, 0), q[15]);
        EXPECT_EQ(s->heads->Q.at(0, 4, 2), q[14]);
        ASSERT_EQ(s->variants.size(), 1u);
        EXPECT_TRUE(s->variants[0].error.empty()) << s->variants[0].error;
    }
}

TEST(GuiInputs, TensorErrorsAreSentences) {
    std::printf("[case] Tensors mode: empty path, missing file, NaN in q, float16 npy\n");
    TempDir dir("gui-npy-bad");
    auto backend = make_backend("cpu");
    auto error_of = [&](const std::string& path) {
        const auto s = run_batch(tensors_batch(path), *backend, nullptr);
        return s ? s->input_error : std::string("no snapshot");
    };
    EXPECT_NE(error_of("").find("Load"), std::string::npos) << error_of("");
    const std::string missing = error_of(dir.file("nothing.safetensors"));
    EXPECT_NE(missing.find("does not exist"), std::string::npos) << missing;
    const std::string missing_npy = error_of(dir.file("sub/q.npy"));
    EXPECT_NE(missing_npy.find("does not exist"), std::string::npos) << missing_npy;
    std::vector<float> q = ramp(6, 0, 1);
    q[4] = std::nanf("");
    write_bytes(dir.file("q.npy"), npy_bytes("<f4", "(3, 2)", f32_bytes(q)));
    write_bytes(dir.file("k.npy"), npy_bytes("<f4", "(3, 2)", f32_bytes(ramp(6, 0, 1))));
    write_bytes(dir.file("v.npy"), npy_bytes("<f4", "(3, 2)", f32_bytes(ramp(6, 0, 1))));
    const std::string nan = error_of(dir.path().string());
    EXPECT_NE(nan.find("NaN"), std::string::npos) << nan;
    write_bytes(dir.file("q.npy"), npy_bytes("<f2", "(3, 2)", std::string(12, '\0')));
    const std::string f16 = error_of(dir.path().string());
    EXPECT_FALSE(f16.empty());
    EXPECT_NE(f16.find("f2"), std::string::npos) << f16;
}

TEST(GuiInputs, PooledDifferenceEqualsPoolingTheDifference) {
    std::printf("[case] bigbird on local n=100 H=2 d=16, view 32: the pooled difference is the signed max-abs pooling of P_eff - P\n");
    RunBatchRequest r;
    r.input.scenario.kind = ScenarioKind::Local;
    r.input.scenario.n = 100, r.input.scenario.heads = 2, r.input.scenario.dim = 16;
    r.variants = {parse_variant_request("bigbird", {{"block", "4"}})};
    r.view_size = 32;
    auto backend = make_backend("cpu");
    const auto s = run_batch(r, *backend, nullptr);
    ASSERT_TRUE(s && s->input_error.empty());
    const VariantView& v = s->variants.at(0);
    ASSERT_TRUE(v.error.empty()) << v.error;
    ASSERT_TRUE(v.pooled_diff && v.result->P_eff && s->exact_P.count(false));
    const Tensor3& P = *s->exact_P.at(false);
    Tensor3 diff(P.heads(), P.rows(), P.cols());
    for (int64_t k = 0; k < diff.size(); ++k) diff.data()[k] = v.result->P_eff->data()[k] - P.data()[k];
    Tensor3 expected;
    backend->pooled_view(diff, 32, PoolMode::SignedMaxAbs, expected);
    ASSERT_EQ(expected.rows(), v.pooled_diff->rows());
    float worst = 0, largest = 0;
    for (int64_t k = 0; k < expected.size(); ++k) {
        worst = std::max(worst, std::abs(expected.data()[k] - v.pooled_diff->data()[k]));
        largest = std::max(largest, std::abs(expected.data()[k]));
    }
    EXPECT_GT(largest, 1e-4f);  // bigbird drops cells, so there is a difference to compare
    EXPECT_LT(worst, 1e-6f) << "largest |diff| " << largest;
}

TEST(GuiInputs, TooLongTextReportsCountsAndTruncates) {
    ATTNSCOPE_MODEL_OR_SKIP(dir);
    std::string text;
    for (int k = 0; k < 600; ++k) text += "word ";
    std::printf("[case] text of 600 words (> 512 tokens): refused with counts, then truncated\n");
    RunBatchRequest r;
    r.input.mode = InputMode::Text;
    r.input.text = text;
    r.input.model_dir = dir;
    r.variants = {parse_variant_request("flash", {})};
    r.max_matrix_n = 64;  // no n×n matrices: only the input matters here
    auto backend = make_backend("cpu");
    const auto refused = run_batch(r, *backend, nullptr);
    ASSERT_TRUE(refused);
    EXPECT_TRUE(refused->input_info.too_long);
    EXPECT_EQ(refused->input_info.tokens, 602);  // [CLS] + 600 + [SEP]
    EXPECT_EQ(refused->input_info.max_tokens, 512);
    EXPECT_NE(refused->input_error.find("602 tokens"), std::string::npos) << refused->input_error;
    r.input.truncate = true;
    const auto cut = run_batch(r, *backend, nullptr);
    ASSERT_TRUE(cut && cut->input_error.empty()) << (cut ? cut->input_error : "");
    EXPECT_TRUE(cut->input_info.truncated);
    EXPECT_FALSE(cut->input_info.too_long);
    EXPECT_EQ(cut->heads->n(), 512);
    EXPECT_EQ(cut->heads->tokens.back(), "[SEP]");
}

TEST(GuiInputs, LayerSpectraMatchTheSpectrumOfEachLayersSoftmax) {
    ATTNSCOPE_MODEL_OR_SKIP(dir);
    const std::string text = "Attention weights of a trained encoder are far from random.";
    std::printf("[case] text_layer_spectra on '%s': every layer and head; layer 3 head 5 against softmax(QK^T/sqrt(d))\n",
                text.c_str());
    TextInputSpec spec;
    spec.text = text;
    spec.model_dir = dir;
    const auto s = text_layer_spectra(spec);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->layers, 6);
    EXPECT_EQ(s->heads, 12);
    ASSERT_EQ(s->cumulative.size(), 72u);
    ASSERT_EQ(int(s->tokens.size()), s->n);
    for (const auto& c : s->cumulative) {
        ASSERT_EQ(int(c.size()), s->n);
        for (size_t i = 1; i < c.size(); ++i) ASSERT_GE(c[i], c[i - 1] - 1e-12);
        EXPECT_NEAR(c.back(), 1.0, 1e-9);
    }
    // The same cell from the layer's Q and K, the way the variants see them.
    spec.layer = 3;
    const TextInput in = load_text_input(spec);
    const int n = in.heads.n(), d = in.heads.d(), h = 5;
    Tensor3 P(1, n, n);
    for (int i = 0; i < n; ++i) {
        std::vector<double> row(static_cast<size_t>(n));
        double top = -1e300, sum = 0;
        for (int j = 0; j < n; ++j) {
            double dot = 0;
            for (int c = 0; c < d; ++c) dot += double(in.heads.Q.at(h, i, c)) * in.heads.K.at(h, j, c);
            row[size_t(j)] = dot / std::sqrt(double(d));
            top = std::max(top, row[size_t(j)]);
        }
        for (double& x : row) sum += (x = std::exp(x - top));
        for (int j = 0; j < n; ++j) P.at(0, i, j) = float(row[size_t(j)] / sum);
    }
    const Spectrum ref = compute_spectrum(P, 0);
    for (int k : {1, std::max(1, n / 8), n / 2}) EXPECT_NEAR(s->at(3, h, k), ref.cumulative[size_t(k - 1)], 1e-4) << "k " << k;
    EXPECT_DOUBLE_EQ(s->at(3, h, 0), s->at(3, h, 1));       // k clamps to 1..n
    EXPECT_DOUBLE_EQ(s->at(3, h, 10 * n), s->at(3, h, n));
    std::atomic<bool> cancel{true};
    EXPECT_FALSE(text_layer_spectra(spec, [&] { return cancel.load(); }));
}

}  // namespace
}  // namespace attnscope
