// The GUI's background worker: snapshots, cancellation, pooled views and mask pooling.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "core/backend/factory/make_backend.h"
#include "core/session/batch_cache.h"
#include "core/session/worker.h"
#include "tests/unit/worker_test_util.h"

namespace attnscope {
namespace {

RunBatchRequest small_batch(int n, int view) {
    RunBatchRequest r = test::small_batch(n, view);
    r.want_spectrum = true;
    return r;
}

std::shared_ptr<const RunSnapshot> wait_for(Worker& w, uint64_t generation) {
    for (int k = 0; k < 6000; ++k) {
        auto s = w.run_snapshot();
        if (s && s->generation == generation && s->complete && w.state() != WorkerState::Running) return s;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return nullptr;
}

TEST(Worker, BatchPublishesPooledViewsAndExactReference) {
    std::printf("[case] worker batch full+flash n=96 view=32\n");
    Worker w(make_backend, "cpu");
    const uint64_t g = w.post(small_batch(96, 32));
    auto s = wait_for(w, g);
    ASSERT_TRUE(s);
    EXPECT_EQ(w.state(), WorkerState::Done);
    ASSERT_EQ(s->variants.size(), 2u);
    EXPECT_EQ(s->view_size, 32);
    ASSERT_TRUE(s->exact_pooled.count(false));
    for (const auto& v : s->variants) {
        ASSERT_TRUE(v.error.empty()) << v.error;
        ASSERT_TRUE(v.pooled);
        EXPECT_EQ(v.pooled->rows(), 32);
        // Max pooling keeps the largest weight of each bin: the pooled max equals the matrix max.
        EXPECT_FLOAT_EQ(v.pooled->head(0).maxCoeff(), v.result->P_eff->head(0).maxCoeff());
        ASSERT_TRUE(v.pooled_diff);
        EXPECT_LT(v.pooled_diff->head(0).cwiseAbs().maxCoeff(), 1e-5f);  // both are exact
        ASSERT_TRUE(v.spectrum);
        ASSERT_FALSE(v.spectrum->cumulative.empty());
        EXPECT_NEAR(v.spectrum->cumulative.back(), 1.0, 1e-9);
    }
}

TEST(Worker, NewerRequestWinsAndBadInputIsASentence) {
    std::printf("[case] worker: three posts, last one has n=0\n");
    Worker w(make_backend, "cpu");
    w.post(small_batch(512, 64));
    w.post(small_batch(256, 64));
    RunBatchRequest bad = small_batch(64, 64);
    bad.input.scenario.n = 0;
    const uint64_t g = w.post(bad);
    auto s = wait_for(w, g);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->generation, g);
    EXPECT_EQ(w.state(), WorkerState::Failed);
    EXPECT_FALSE(s->input_error.empty());
    EXPECT_NE(s->input_error.find("n"), std::string::npos) << s->input_error;
}

TEST(Worker, UnknownVariantFailsOnlyItsSlot) {
    std::printf("[case] worker: unknown variant beside full\n");
    Worker w(make_backend, "cpu");
    RunBatchRequest r = small_batch(32, 32);
    r.variants[1].id = "no-such-variant";
    auto s = wait_for(w, w.post(r));
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->variants[0].error.empty());
    EXPECT_FALSE(s->variants[1].error.empty());
}

TEST(Worker, MaskPoolingKeepsTheMostSalientReason) {
    std::printf("[case] pool_mask 4x4 -> 2x2: one global cell among local cells, one random cell among none\n");
    ReasonMask m;
    m.heads = 1, m.n = 4;
    m.cells.assign(16, 0);
    auto set = [&](int i, int j, Reason r) { m.cells[i * 4 + j] = static_cast<uint8_t>(r); };
    // Bin (0,0): local ×2 and one global cell — a one-cell column of a global token must stay visible (the most
    // frequent reason would hide it). Bin (1,1): one random cell among not-allowed cells.
    set(0, 0, Reason::Local), set(1, 1, Reason::Local), set(0, 1, Reason::Global);
    set(2, 3, Reason::Random);
    set(2, 0, Reason::Window), set(3, 1, Reason::Sink), set(3, 0, Reason::Window);  // bin (1,0): sink beats window ×2
    const auto p = pool_mask(m, 2);
    ASSERT_EQ(p.size(), 4u);
    EXPECT_EQ(p[0], static_cast<uint8_t>(Reason::Global));
    EXPECT_EQ(p[1], 0);
    EXPECT_EQ(p[2], static_cast<uint8_t>(Reason::Sink));
    EXPECT_EQ(p[3], static_cast<uint8_t>(Reason::Random));
    // One cell per bin: each pixel is its cell's reason, and a code outside the reasons shows as none.
    m.cells[5] = 250;
    const auto same = pool_mask(m, 4);
    ASSERT_EQ(same.size(), 16u);
    for (size_t k = 0; k < 16; ++k) EXPECT_EQ(same[k], k == 5 ? 0 : m.cells[k]) << "cell " << k;
}

TEST(Worker, MaskPoolingOfWideBinsIsTheFoldOfEveryCell) {
    std::printf("[case] pool_mask 2 heads, n = 100 -> 6x6: bins of 16-17 cells a side, sparse single cells\n");
    // Bins wider than eight cells, ragged edges, one or two reasons per bin at any offset (inside an 8-cell word or
    // at a bin's last cell), codes outside the reasons: the expectation folds most_salient over every cell.
    ReasonMask m;
    m.heads = 2, m.n = 100;
    m.cells.assign(size_t(2) * 100 * 100, 0);
    uint32_t state = 12345;
    const auto next = [&] { return state = state * 1664525u + 1013904223u; };
    for (int k = 0; k < 120; ++k) {
        const uint32_t at = next() % uint32_t(m.cells.size());
        const uint32_t code = next() % (uint32_t(Reason::Count) + 2);  // two codes outside the reasons
        m.cells[at] = uint8_t(code < uint32_t(Reason::Count) ? code : 200 + code);
    }
    const int s = 6;
    const auto p = pool_mask(m, s);
    ASSERT_EQ(p.size(), size_t(2) * s * s);
    for (int h = 0; h < 2; ++h)
        for (int bi = 0; bi < s; ++bi)
            for (int bj = 0; bj < s; ++bj) {
                uint8_t want = 0;
                for (int i = bi * 100 / s; i < (bi + 1) * 100 / s; ++i)
                    for (int j = bj * 100 / s; j < (bj + 1) * 100 / s; ++j)
                        want = most_salient(want, m.cells[(size_t(h) * 100 + i) * 100 + j]);
                EXPECT_EQ(p[(size_t(h) * s + bi) * s + bj], want) << "head " << h << " bin " << bi << "," << bj;
            }
}

TEST(Worker, MaskLegendBitsNameExactlyTheReasonsOfEachPlane) {
    std::printf("[case] reasons_per_plane of 3 planes of 4 bins: a window/sink plane, an empty plane, a dense/local/stride plane\n");
    const auto code = [](Reason r) { return static_cast<uint8_t>(r); };
    const std::vector<uint8_t> pooled = {
        code(Reason::Window), code(Reason::Sink), code(Reason::Window), 0,              // plane 0
        0, 0, 0, 0,                                                                     // plane 1: nothing allowed
        code(Reason::Dense), code(Reason::Local), code(Reason::Stride), code(Reason::Local)};  // plane 2
    const std::vector<uint32_t> bits = reasons_per_plane(pooled, 3);
    ASSERT_EQ(bits.size(), 3u);
    const auto bit = [](Reason r) { return 1u << static_cast<int>(r); };
    EXPECT_EQ(bits[0], bit(Reason::None) | bit(Reason::Window) | bit(Reason::Sink));
    EXPECT_EQ(bits[1], bit(Reason::None));
    EXPECT_EQ(bits[2], bit(Reason::Dense) | bit(Reason::Local) | bit(Reason::Stride));
    // The last reason's bit is reachable (a 32-bit word holds every reason).
    const std::vector<uint32_t> last = reasons_per_plane({code(Reason::Slash)}, 1);
    ASSERT_EQ(last.size(), 1u);
    EXPECT_EQ(last[0], bit(Reason::Slash));
}

}  // namespace
}  // namespace attnscope

namespace attnscope {
namespace {

TEST(Worker, SpectrumOfDiagonalIsItsSortedAbsoluteDiagonal) {
    std::printf("[case] matrix_spectrum of diag(1, -3, 2) (3x3, one head) and of a rank-1 4x2\n");
    Tensor3 M(1, 3, 3, 0.0f);
    M.at(0, 0, 0) = 1, M.at(0, 1, 1) = -3, M.at(0, 2, 2) = 2;
    const SpectrumView s = matrix_spectrum(M, 0);
    ASSERT_EQ(s.singular_values.size(), 3u) << s.note;
    EXPECT_NEAR(s.singular_values[0], 3, 1e-6);  // float LAPACK (core/analysis/spectrum.h)
    EXPECT_NEAR(s.singular_values[1], 2, 1e-6);
    EXPECT_NEAR(s.singular_values[2], 1, 1e-6);
    // The project's convention (Linformer Fig. 1): cumulative sum of σ, normalised: 3 / (3 + 2 + 1).
    EXPECT_NEAR(s.cumulative[0], 3.0 / 6.0, 1e-6);
    Tensor3 R(1, 4, 2, 1.0f);  // all ones: rank 1, σ_1 = √8
    const SpectrumView r = matrix_spectrum(R, 0);
    ASSERT_EQ(r.singular_values.size(), 2u) << r.note;
    EXPECT_NEAR(r.singular_values[0], std::sqrt(8.0), 1e-6);
    EXPECT_NEAR(r.singular_values[1], 0.0, 1e-6);
}

}  // namespace
}  // namespace attnscope

namespace attnscope {
namespace {

TEST(Worker, SupersededRunningBatchIsNeverPublished) {
    std::printf("[case] worker: batch A (n=2048, 8 variants) superseded mid-run by batch B (n=32)\n");
    Worker w(make_backend, "cpu");
    // A must still be running when B arrives, on any machine: eight exact runs at n = 2048 (each with its
    // reference and a materialised P) take far longer than the 30 ms we wait.
    RunBatchRequest a = small_batch(2048, 64);
    a.want_spectrum = false;
    for (int k = 0; k < 3; ++k) a.variants.insert(a.variants.end(), a.variants.begin(), a.variants.begin() + 2);
    const uint64_t ga = w.post(a);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    std::shared_ptr<const RunSnapshot> before_b = w.run_snapshot();
    // Partial snapshots of A (views as they finish) may show; a complete one would mean A was not cancelled.
    ASSERT_FALSE(before_b && before_b->generation == ga && before_b->complete)
        << "A finished before B was posted: the case needs a longer A";
    RunBatchRequest b = small_batch(32, 32);
    b.want_spectrum = false;
    const uint64_t gb = w.post(b);
    bool saw_a = false;
    std::shared_ptr<const RunSnapshot> s;
    for (int k = 0; k < 30000; ++k) {
        s = w.run_snapshot();
        saw_a = saw_a || (s && s->generation == ga && s->complete);
        if (s && s->generation == gb && s->complete && w.state() != WorkerState::Running) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_TRUE(s);
    EXPECT_EQ(s->generation, gb);
    EXPECT_EQ(s->heads->n(), 32);
    EXPECT_FALSE(saw_a) << "a cancelled batch must never be published complete";
}

TEST(Worker, ChangingOneVariantRerunsOnlyItAndViewsShowAsTheyFinish) {
    std::printf("[case] worker: full+flash, then flash's tile changed: full reused; partial snapshots before the last\n");
    Worker w(make_backend, "cpu");
    RunBatchRequest r = small_batch(96, 32);
    auto first = wait_for(w, w.post(r));
    ASSERT_TRUE(first);
    ASSERT_EQ(r.variants.size(), 2u);
    r.variants[1].params.set("tile_rows", 32);
    std::vector<std::shared_ptr<const RunSnapshot>> seen;
    const uint64_t g = w.post(r);
    std::shared_ptr<const RunSnapshot> s;
    for (int k = 0; k < 6000; ++k) {
        s = w.run_snapshot();
        if (s && s->generation == g && (seen.empty() || seen.back() != s)) seen.push_back(s);
        if (s && s->generation == g && s->complete && w.state() != WorkerState::Running) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE(s && s->complete);
    ASSERT_EQ(s->variants.size(), 2u);
    EXPECT_TRUE(s->variants[0].reused) << "full's views did not depend on flash's parameters";
    EXPECT_FALSE(s->variants[1].reused);
    EXPECT_EQ(s->variants[0].result, first->variants[0].result) << "the same run, not a recomputed copy";
    ASSERT_TRUE(s->variants[1].result);
    EXPECT_EQ(s->variants[1].result->params.get_int("tile_rows"), 32);
    bool cached_input = false;
    for (const StageTime& t : s->stages) cached_input = cached_input || t.name == "input (cached)";
    EXPECT_TRUE(cached_input);
    for (const VariantView& v : s->variants) EXPECT_EQ(v.state, ViewState::Done);
    for (const auto& p : seen) {  // every partial snapshot lists both views, finished or not
        if (!p->complete) {
            EXPECT_EQ(p->variants.size(), 2u);
        }
    }
}

bool has_stage(const RunSnapshot& s, const std::string& name) {
    for (const StageTime& t : s.stages)
        if (t.name == name) return true;
    return false;
}

/// The snapshot's exact pictures equal those pooled afresh from its own exact P (non-causal).
void expect_pictures_of_its_exact_P(const RunSnapshot& s, Backend& backend, int size, const char* which) {
    ASSERT_TRUE(s.exact_P.count(false) && s.exact_pooled.count(false) && s.exact_thumbs) << which;
    Tensor3 pooled, thumbs;
    backend.pooled_view(*s.exact_P.at(false), size, PoolMode::Max, pooled);
    backend.pooled_view(*s.exact_P.at(false), 128, PoolMode::Max, thumbs);
    ASSERT_EQ(pooled.size(), s.exact_pooled.at(false)->size()) << which;
    ASSERT_EQ(thumbs.size(), s.exact_thumbs->size()) << which;
    for (int64_t k = 0; k < pooled.size(); ++k) ASSERT_EQ(pooled.data()[k], s.exact_pooled.at(false)->data()[k]) << which;
    for (int64_t k = 0; k < thumbs.size(); ++k) ASSERT_EQ(thumbs.data()[k], s.exact_thumbs->data()[k]) << which;
}

TEST(Worker, AVariantsEditReusesTheExactPicturesANewInputOrOrderDoesNot) {
    std::printf("[case] batches on one cache: flash's tile changed, then clusters order, positions again, a new seed\n");
    const auto cpu = make_backend("cpu");
    BatchCache cache;
    RunBatchRequest r = small_batch(96, 32);
    r.input.scenario.kind = ScenarioKind::Clustered;  // it has groups to order by
    const auto first = run_batch(r, *cpu, nullptr, &cache);
    ASSERT_TRUE(first);
    expect_pictures_of_its_exact_P(*first, *cpu, 32, "first");
    EXPECT_FALSE(has_stage(*first, "pool exact (cached)"));

    r.variants[1].params.set("tile_rows", 32);  // the input and its references stay
    const auto edit = run_batch(r, *cpu, nullptr, &cache);
    ASSERT_TRUE(edit);
    EXPECT_TRUE(has_stage(*edit, "pool exact (cached)"));
    EXPECT_EQ(edit->exact_pooled.at(false), first->exact_pooled.at(false)) << "the same pictures, not pooled again";
    EXPECT_EQ(edit->exact_thumbs, first->exact_thumbs);
    expect_pictures_of_its_exact_P(*edit, *cpu, 32, "edit");

    r.display_order = DisplayOrder::Groups;  // the exact P is permuted: its pictures are other pictures
    const auto grouped = run_batch(r, *cpu, nullptr, &cache);
    ASSERT_TRUE(grouped);
    ASSERT_FALSE(grouped->display_perm.empty());
    EXPECT_FALSE(has_stage(*grouped, "pool exact (cached)"));
    expect_pictures_of_its_exact_P(*grouped, *cpu, 32, "grouped");

    r.display_order = DisplayOrder::Positions;
    const auto back = run_batch(r, *cpu, nullptr, &cache);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->exact_pooled.at(false), first->exact_pooled.at(false)) << "the grouped batch did not replace them";
    expect_pictures_of_its_exact_P(*back, *cpu, 32, "back");

    r.input.scenario.seed += 1;  // a new input
    const auto fresh = run_batch(r, *cpu, nullptr, &cache);
    ASSERT_TRUE(fresh);
    EXPECT_FALSE(has_stage(*fresh, "pool exact (cached)"));
    expect_pictures_of_its_exact_P(*fresh, *cpu, 32, "new input");
}

}  // namespace
}  // namespace attnscope
