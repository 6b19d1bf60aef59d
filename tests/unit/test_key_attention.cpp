// Attention sinks: the mean received attention on matrices where the answer is known, and token kinds.
#include <gtest/gtest.h>

#include "core/analysis/key_attention.h"
#include "core/error.h"

namespace attnscope::test {
namespace {

TEST(KeyAttention, ASinkColumnReceivesWhatEveryRowGivesIt) {
    const int n = 4;
    // Layer A, head 0: every query puts all its weight on key 2. Head 1: uniform rows.
    Tensor3 a(2, n, n, 0.0f);
    for (int i = 0; i < n; ++i) {
        a.at(0, i, 2) = 1.0f;
        for (int j = 0; j < n; ++j) a.at(1, i, j) = 0.25f;
    }
    // Layer B, one head: the identity (each key receives exactly one row's weight).
    Tensor3 b(1, n, n, 0.0f);
    for (int i = 0; i < n; ++i) b.at(0, i, i) = 1.0f;
    const std::vector<double> r = mean_received_attention({&a, &b});
    ASSERT_EQ(r.size(), size_t(n));
    // Over 3 heads × 4 rows = 12 rows: key 2 gets 4 (head 0) + 1 (head 1) + 1 (identity) = 6 → 0.5;
    // every other key gets 0 + 1 + 1 = 2 → 1/6.
    EXPECT_NEAR(r[2], 0.5, 1e-12);
    for (int j : {0, 1, 3}) EXPECT_NEAR(r[size_t(j)], 1.0 / 6, 1e-7);
    double sum = 0;
    for (double v : r) sum += v;
    EXPECT_NEAR(sum, 1.0, 1e-6);
}

TEST(KeyAttention, MatricesOfAnotherLengthAreRejected) {
    Tensor3 a(1, 3, 3, 1.0f / 3), b(1, 4, 4, 0.25f);
    EXPECT_THROW(mean_received_attention({&a, &b}), Error);
    EXPECT_THROW(mean_received_attention({}), Error);
}

TEST(KeyAttention, UniformShareIsWhatUniformRowsGive) {
    // The baseline a sink is measured against: the mean received weight of P whose rows are uniform over their keys.
    const int n = 7;
    for (const bool causal : {false, true}) {
        Tensor3 P(1, n, n);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j <= (causal ? i : n - 1); ++j) P.at(0, i, j) = 1.0f / float(causal ? i + 1 : n);
        const std::vector<double> received = mean_received_attention({&P}), share = uniform_received_share(n, causal);
        ASSERT_EQ(share.size(), size_t(n));
        for (int j = 0; j < n; ++j) EXPECT_NEAR(share[size_t(j)], received[size_t(j)], 1e-7) << "causal " << causal << " key " << j;
    }
    EXPECT_NEAR(uniform_received_share(4, true)[0], (1 + 0.5 + 1.0 / 3 + 0.25) / 4, 1e-12);
    EXPECT_NEAR(uniform_received_share(4, true)[3], 1.0 / 16, 1e-12);
}

TEST(KeyAttention, TokenKinds) {
    EXPECT_EQ(token_kind("[CLS]"), TokenKind::Special);
    EXPECT_EQ(token_kind("[SEP]"), TokenKind::Special);
    EXPECT_EQ(token_kind("."), TokenKind::Punctuation);
    EXPECT_EQ(token_kind(","), TokenKind::Punctuation);
    EXPECT_EQ(token_kind("?!"), TokenKind::Punctuation);
    EXPECT_EQ(token_kind("fox"), TokenKind::Word);
    EXPECT_EQ(token_kind("##s"), TokenKind::Word);  // a word piece, not punctuation
    EXPECT_EQ(token_kind("[a"), TokenKind::Word);
    EXPECT_EQ(token_kind("12"), TokenKind::Word);
}

}  // namespace
}  // namespace attnscope::test
