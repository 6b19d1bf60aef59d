// Masked family, property tests over many seeds: every layout cell and every reason equals a brute-force
// O(n²) predicate written from the paper's definition (docs/VARIANTS.md), and every output equals a dense
// double-precision masked softmax over the same cells (relative 1e-5), with allowed_lse equal to its lse.
#include <algorithm>
#include <bit>
#include <set>

#include "tests/unit/sparse_test_util.h"

namespace attnscope::test {
namespace {

using Assignments = std::vector<std::pair<std::string, std::string>>;

/// A brute-force reason for (h, i, j); Reason::None = not allowed.
using ReasonFn = std::function<Reason(int, int, int)>;

/// Uniform integer in [lo, hi] from the test's own counter stream.
struct Draw {
    uint64_t seed, k = 0;
    int operator()(int lo, int hi) { return lo + static_cast<int>(rng::below(seed, 99, k++, uint64_t(hi - lo + 1))); }
};

bool uses_a(int mode, int h) { return mode == 1 || mode == 2 || (mode == 0 && h % 2 == 0); }
bool uses_b(int mode, int h) { return mode == 1 || mode == 3 || (mode == 0 && h % 2 == 1); }
const char* kModes[] = {"split", "union", "A", "B"};

/// Checks layout cells, mask reasons, outputs and allowed_lse of one run against `brute`.
void check_against_brute(const std::string& id, const Heads& x, const Assignments& sets, const ReasonFn& brute,
                         Backend& backend, bool causal_expected, const Logit& logit = {}) {
    std::optional<BlockLayout> layout;
    const RunResult r = run_recorded(x, id, sets, backend, &layout);
    ASSERT_TRUE(layout.has_value());
    ASSERT_TRUE(r.structure.mask.has_value());
    EXPECT_EQ(r.causal, causal_expected);
    const int H = x.heads(), n = x.n();
    const std::vector<int>& perm = r.structure.blocks.value().perm;
    const std::vector<uint8_t> cells = layout_cells(*layout, H, perm.empty() ? nullptr : &perm);
    int64_t mismatches = 0, allowed = 0;
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                const Reason want = brute(h, i, j);
                const bool got_cell = cells[(static_cast<size_t>(h) * n + i) * n + j] != 0;
                const Reason got_reason = r.structure.mask->at(h, i, j);
                allowed += want != Reason::None;
                if (got_cell != (want != Reason::None) || got_reason != want) {
                    if (++mismatches <= 5)
                        ADD_FAILURE() << id << " h=" << h << " i=" << i << " j=" << j << " want " << reason_name(want)
                                      << " layout " << got_cell << " reason " << reason_name(got_reason);
                }
            }
    EXPECT_EQ(mismatches, 0);
    const double denom = causal_expected ? 0.5 * n * (n + 1.0) : double(n) * n;
    EXPECT_NEAR(*r.structure.density, double(allowed) / (H * denom), 1e-12);

    Tensor3 O_ref, lse_ref;
    masked_reference(
        x, 1.0 / std::sqrt(double(x.d())), [&](int h, int i, int j) { return brute(h, i, j) != Reason::None; }, O_ref,
        lse_ref, logit);
    EXPECT_LE(rel_err(r.O, O_ref), 1e-5);
    const Tensor3& lse = *r.structure.allowed_lse;
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) {
            const float a = lse.at(h, i, 0), b = lse_ref.at(h, i, 0);
            if (std::isinf(b)) {
                EXPECT_TRUE(std::isinf(a) && a < 0) << "row " << i << " head " << h << " is empty";
            } else {
                EXPECT_NEAR(a, b, 1e-5 * std::max(1.0f, std::fabs(b))) << "lse row " << i << " head " << h;
            }
        }
    // P̃ rows are the masked softmax: non-negative, sum to 1 on non-empty rows, zero off the mask.
    ASSERT_TRUE(r.P_eff.has_value());
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i) {
            double sum = 0;
            for (int j = 0; j < n; ++j) {
                const float p = r.P_eff->at(h, i, j);
                if (brute(h, i, j) == Reason::None) {
                    EXPECT_EQ(p, 0.0f);
                }
                sum += p;
            }
            if (!std::isinf(lse_ref.at(h, i, 0))) {
                EXPECT_NEAR(sum, 1.0, 1e-5);
            }
        }
}

class SparseLayoutProperty : public testing::TestWithParam<std::string> {};

constexpr int kSeeds = 24;

TEST_P(SparseLayoutProperty, StridedMatchesDefinition) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
        Draw draw{seed};
        const int n = draw(1, 200), H = draw(1, 4), d = draw(1, 3) * 8 - 7, l = draw(1, n + 4);
        const bool bidir = draw(0, 3) == 0;
        const int mode = draw(0, 3);
        std::cout << "[case] backend=" << GetParam() << " strided seed=" << seed << " n=" << n << " H=" << H
                  << " d=" << d << " l=" << l << " bidir=" << bidir << " heads=" << kModes[mode] << "\n";
        const Heads x = random_heads(H, n, d, 5, seed);
        // Child et al. 2019, §4.2: A(i) = {j : i − j < l}, B(i) = {j : (i − j) mod l = 0}, both j ≤ i.
        const ReasonFn brute = [&](int h, int i, int j) {
            if (!bidir && j > i) return Reason::None;
            if (uses_a(mode, h) && std::abs(i - j) < l) return Reason::Local;
            if (uses_b(mode, h) && ((i - j) % l + l) % l == 0) return Reason::Stride;
            return Reason::None;
        };
        check_against_brute(
            "strided", x,
            {{"stride", std::to_string(l)}, {"bidirectional", bidir ? "1" : "0"}, {"head_pattern", kModes[mode]}},
            brute, *backend, !bidir);
        if (HasFailure()) return;
    }
}

TEST_P(SparseLayoutProperty, FixedMatchesDefinition) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
        Draw draw{seed + 1000};
        const int n = draw(1, 200), H = draw(1, 4), d = draw(1, 16), l = draw(1, std::min(n + 4, 90)), c = draw(1, l);
        const bool causal = draw(0, 2) != 0;
        const int mode = draw(0, 3);
        std::cout << "[case] backend=" << GetParam() << " fixed seed=" << seed << " n=" << n << " H=" << H << " d=" << d
                  << " l=" << l << " c=" << c << " causal=" << causal << " heads=" << kModes[mode] << "\n";
        const Heads x = random_heads(H, n, d, 6, seed);
        // Child et al. 2019, §4.2: A(i) = {j : ⌊j/l⌋ = ⌊i/l⌋}, B(i) = {j : j mod l ∈ {t, …, l}}, t = l − c.
        const ReasonFn brute = [&](int h, int i, int j) {
            if (causal && j > i) return Reason::None;
            if (uses_a(mode, h) && j / l == i / l) return Reason::Local;
            if (uses_b(mode, h))
                for (int t = l - c; t < l; ++t)
                    if (j % l == t) return Reason::Summary;
            return Reason::None;
        };
        check_against_brute("fixed", x,
                            {{"block", std::to_string(l)},
                             {"summary", std::to_string(c)},
                             {"causal", causal ? "1" : "0"},
                             {"head_pattern", kModes[mode]}},
                            brute, *backend, causal);
        if (HasFailure()) return;
    }
}

TEST_P(SparseLayoutProperty, LongformerMatchesDefinition) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
        Draw draw{seed + 2000};
        const int n = draw(1, 260), H = draw(1, 4), d = draw(1, 16), w = draw(0, 2 * n + 3), drawn_delta = draw(1, 4);
        const bool drawn_per_head = draw(0, 1) == 1, causal = draw(0, 1) == 1;
        std::vector<int> G;
        for (int k = draw(0, 3); k > 0; --k) G.push_back(draw(0, n - 1));
        // Every third seed is a plain window (δ = 1, no globals): the rows build_layout fills as one interval each.
        const bool plain = seed % 3 == 0;
        const int delta = plain ? 1 : drawn_delta;
        const bool per_head = !plain && drawn_per_head;
        if (plain) G.clear();
        std::string g_text = G.empty() ? "none" : "";
        for (size_t k = 0; k < G.size(); ++k) g_text += (k ? "," : "") + std::to_string(G[k]);
        std::cout << "[case] backend=" << GetParam() << " longformer seed=" << seed << " n=" << n << " H=" << H
                  << " w=" << w << " δ=" << delta << " per_head=" << per_head << " G=" << g_text << " causal=" << causal
                  << "\n";
        const Heads x = random_heads(H, n, d, 7, seed);
        // Beltagy et al. 2020: j = i + δ·t with |t| ≤ w/2 (w keys spread δ apart); global rows/columns symmetric.
        const ReasonFn brute = [&](int h, int i, int j) {
            if (causal && j > i) return Reason::None;
            if (std::find(G.begin(), G.end(), i) != G.end() || std::find(G.begin(), G.end(), j) != G.end())
                return Reason::Global;
            const int dh = per_head ? (h + 1) * delta : delta;
            const int t = (j - i) / dh;
            if (t * dh == j - i && 2 * std::abs(t) <= w) return dh == 1 ? Reason::Window : Reason::Dilated;
            return Reason::None;
        };
        check_against_brute("longformer", x,
                            {{"window", std::to_string(w)},
                             {"dilation", std::to_string(delta)},
                             {"dilation_per_head", per_head ? "1" : "0"},
                             {"global", g_text},
                             {"causal", causal ? "1" : "0"}},
                            brute, *backend, causal);
        if (HasFailure()) return;
    }
}

TEST_P(SparseLayoutProperty, BigBirdMatchesDefinition) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
        Draw draw{seed + 3000};
        const int n = draw(1, 260), H = draw(1, 3), d = draw(1, 16), b = draw(1, 40), wb = 2 * draw(0, 2) + 1;
        const int g = draw(0, 4), r = draw(0, 4);
        const bool causal = draw(0, 1) == 1;
        const int nb = (n + b - 1) / b;
        std::cout << "[case] backend=" << GetParam() << " bigbird seed=" << seed << " n=" << n << " H=" << H
                  << " b=" << b << " window_blocks=" << wb << " g=" << g << " r=" << r << " causal=" << causal << "\n";
        const Heads x = random_heads(H, n, d, 8, seed);
        const Assignments sets{{"block", std::to_string(b)},         {"window_blocks", std::to_string(wb)},
                               {"global_blocks", std::to_string(g)}, {"random_blocks", std::to_string(r)},
                               {"seed", std::to_string(seed)},       {"causal", causal ? "1" : "0"}};
        // Zaheer et al. 2020 (ITC): global = first ⌈g/2⌉ and last ⌊g/2⌋ blocks; window |I − J| ≤ (w − 1)/2.
        auto is_global = [&](int I) { return I < (g + 1) / 2 || I >= nb - g / 2; };
        auto structural = [&](int i, int j) {
            if (causal && j > i) return Reason::None;
            const int I = i / b, J = j / b;
            if (is_global(I) || is_global(J)) return Reason::Global;
            if (std::abs(I - J) <= (wb - 1) / 2) return Reason::Window;
            return Reason::None;
        };
        // Random blocks are whatever the seed drew: read them off the layout, then check they obey the paper
        // (r distinct eligible key blocks per non-global row, or all eligible ones when fewer exist).
        std::optional<BlockLayout> layout;
        const RunResult first = run_recorded(x, "bigbird", sets, *backend, &layout, false);
        ASSERT_TRUE(layout.has_value());
        const BlockLayoutView v = layout->view();
        std::vector<std::set<int>> random_of(static_cast<size_t>(H) * nb);
        for (int h = 0; h < H; ++h)
            for (int I = 0; I < nb; ++I) {
                std::set<int>& extra = random_of[static_cast<size_t>(h) * nb + I];
                for (int k = layout_row_begin(v, h, I); k < layout_row_end(v, h, I); ++k) {
                    const int J = v.col_idx[k];
                    if (structural(std::min(n - 1, I * b + b - 1), J * b) == Reason::None) extra.insert(J);
                }
                int eligible = 0;
                for (int J = 0; J <= (causal ? I : nb - 1); ++J)
                    eligible += !is_global(J) && std::abs(I - J) > (wb - 1) / 2;
                const int expect = is_global(I) ? 0 : std::min(r, eligible);
                EXPECT_EQ(static_cast<int>(extra.size()), expect)
                    << "random blocks of row block " << I << " head " << h;
                for (int J : extra) EXPECT_TRUE(!is_global(J) && std::abs(I - J) > (wb - 1) / 2 && (!causal || J <= I));
            }
        if (r > 0) {
            const std::vector<int>& head0 = first.structure.random_blocks.value().head0;
            for (int I = 0; I < nb; ++I) {
                std::set<int> listed;
                for (int k = 0; k < r; ++k)
                    if (head0[I * r + k] >= 0) listed.insert(head0[I * r + k]);
                EXPECT_EQ(listed, random_of[I]) << "random_blocks/head0 of row block " << I;
            }
        }
        const ReasonFn brute = [&](int h, int i, int j) {
            const Reason s = structural(i, j);
            if (s != Reason::None || (causal && j > i)) return s;
            return random_of[static_cast<size_t>(h) * nb + i / b].count(j / b) ? Reason::Random : Reason::None;
        };
        check_against_brute("bigbird", x, sets, brute, *backend, causal);
        if (HasFailure()) return;
    }
}

TEST_P(SparseLayoutProperty, XlMatchesDefinition) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
        Draw draw{seed + 4000};
        const int n = draw(1, 260), H = draw(1, 3), d = draw(1, 16), L = draw(1, n + 4);
        const bool same_length = draw(0, 2) == 0;
        const int M = draw(same_length ? 1 : 0, 2 * L + 3);
        std::cout << "[case] backend=" << GetParam() << " xl seed=" << seed << " n=" << n << " H=" << H << " L=" << L
                  << " M=" << M << " same_length=" << same_length << "\n";
        const Heads x = random_heads(H, n, d, 9, seed);
        // Dai et al. 2019: query in segment τ attends its segment causally and the cached M positions before it;
        // same_length (the paper's code): exactly the M keys ending at itself.
        const ReasonFn brute = [&](int, int i, int j) {
            if (j > i) return Reason::None;
            const int tau = i / L, start = tau * L;
            const bool in = same_length ? j > i - M : j >= start - M;
            if (!in) return Reason::None;
            return j >= start ? Reason::Segment : Reason::Memory;
        };
        check_against_brute(
            "xl", x,
            {{"segment", std::to_string(L)}, {"memory", std::to_string(M)}, {"same_length", same_length ? "1" : "0"}},
            brute, *backend, true);
        if (HasFailure()) return;
    }
}

TEST_P(SparseLayoutProperty, SinkMatchesDefinition) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
        Draw draw{seed + 5000};
        const int n = draw(1, 260), H = draw(1, 3), d = draw(1, 16), w = draw(0, n + 4), s = draw(0, 12);
        std::cout << "[case] backend=" << GetParam() << " sink seed=" << seed << " n=" << n << " H=" << H << " w=" << w
                  << " s=" << s << "\n";
        const Heads x = random_heads(H, n, d, 11, seed);
        // Xiao et al. 2023 (StreamingLLM): causal; the first s positions and the w most recent keys i − w < j ≤ i.
        const ReasonFn brute = [&](int, int i, int j) {
            if (j > i) return Reason::None;
            if (j < s) return Reason::Sink;
            return j > i - w ? Reason::Window : Reason::None;
        };
        check_against_brute("sink", x, {{"window", std::to_string(w)}, {"sinks", std::to_string(s)}}, brute, *backend, true);
        if (HasFailure()) return;
    }
}

TEST_P(SparseLayoutProperty, TopKMatchesDefinition) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
        Draw draw{seed + 6000};
        const int n = draw(1, 200), H = draw(1, 3), d = draw(1, 8), k = draw(1, n + 3);
        const bool causal = draw(0, 1) == 1;
        std::cout << "[case] backend=" << GetParam() << " topk seed=" << seed << " n=" << n << " H=" << H << " d=" << d
                  << " k=" << k << " causal=" << causal << "\n";
        // Small integer entries: every score is exact in float and many tie, so the tie rule is tested too.
        Heads x = random_heads(H, n, d, 13, seed);
        for (Tensor3* t : {&x.Q, &x.K})
            for (int h = 0; h < H; ++h)
                for (int i = 0; i < n; ++i)
                    for (int c = 0; c < d; ++c) t->at(h, i, c) = std::round(std::clamp(t->at(h, i, c) * 2.0f, -3.0f, 3.0f));
        // The definition: row i keeps the k keys (j ≤ i when causal) with the largest q_i·k_j, ties to the lower j.
        std::vector<std::vector<std::vector<char>>> kept(H, std::vector<std::vector<char>>(n, std::vector<char>(n, 0)));
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < n; ++i) {
                std::vector<std::pair<double, int>> scored;
                for (int j = 0; j <= (causal ? i : n - 1); ++j) {
                    double dot = 0;
                    for (int c = 0; c < d; ++c) dot += double(x.Q.at(h, i, c)) * x.K.at(h, j, c);
                    scored.push_back({-dot, j});  // ascending: largest score first, then lower j
                }
                std::sort(scored.begin(), scored.end());
                for (size_t t = 0; t < scored.size() && int(t) < k; ++t) kept[h][i][scored[t].second] = 1;
            }
        const ReasonFn brute = [&](int h, int i, int j) { return kept[h][i][j] ? Reason::TopK : Reason::None; };
        check_against_brute("topk", x, {{"k", std::to_string(k)}, {"causal", causal ? "1" : "0"}}, brute, *backend, causal);
        if (HasFailure()) return;
    }
}

TEST_P(SparseLayoutProperty, TopKWithModifiersRanksTheModifiedLogitsInsideTheMask) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
        Draw draw{seed + 6500};
        const int n = draw(2, 160), H = draw(1, 6), d = draw(1, 8), k = draw(1, 24), score = draw(0, 2), mask = draw(0, 2);
        const bool causal = draw(0, 1) == 1;
        const int prefix = draw(0, n), cut1 = draw(1, n - 1), cut2 = draw(1, n - 1);
        const Heads x = random_heads(H, n, d, 9, seed);
        // The oracle of the modified model: row i keeps the k allowed keys (the mask modifier's cells, j ≤ i when
        // causal) with the largest modified logits, ties to the lower j.
        const double s = 1.0 / std::sqrt(double(d));
        const std::vector<double> slopes = alibi_slopes(H);
        const auto allowed = [&](int i, int j) {
            if (causal && j > i) return false;
            if (mask == 1) return j < prefix || j <= i;
            if (mask == 2) return (i >= cut1) == (j >= cut1) && (i >= cut2) == (j >= cut2);
            return true;
        };
        const Logit logit = [&](int h, int i, int j, double v) {
            if (score == 1) return v - slopes[size_t(h)] * std::abs(i - j);
            if (score == 2) return 0.8 * std::tanh(v / 0.8);
            return v;
        };
        std::vector<std::vector<std::vector<char>>> kept(H, std::vector<std::vector<char>>(n, std::vector<char>(n, 0)));
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < n; ++i) {
                std::vector<std::pair<double, int>> scored;
                for (int j = 0; j < n; ++j) {
                    if (!allowed(i, j)) continue;
                    double dot = 0;
                    for (int c = 0; c < d; ++c) dot += double(x.Q.at(h, i, c)) * x.K.at(h, j, c);
                    scored.push_back({-logit(h, i, j, s * dot), j});
                }
                std::sort(scored.begin(), scored.end());
                for (size_t t = 0; t < scored.size() && int(t) < k; ++t) kept[h][i][scored[t].second] = 1;
            }
        Assignments sets = {{"k", std::to_string(k)}, {"causal", causal ? "1" : "0"}, {"cap", "0.8"},
                            {"score_mod", score == 1 ? "alibi" : score == 2 ? "softcap" : "none"}};
        if (mask == 1) sets.push_back({"mask_mod", "prefix"}), sets.push_back({"prefix", std::to_string(prefix)});
        if (mask == 2) {
            sets.push_back({"mask_mod", "document"});
            sets.push_back({"boundaries", std::to_string(std::min(cut1, cut2)) + "," + std::to_string(std::max(cut1, cut2))});
        }
        std::cout << "[case] backend=" << GetParam() << " topk+modifiers seed=" << seed << " n=" << n << " H=" << H
                  << " k=" << k << " score=" << sets[3].second << " mask=" << mask << " causal=" << causal << "\n";
        const ReasonFn brute = [&](int h, int i, int j) { return kept[h][i][j] ? Reason::TopK : Reason::None; };
        check_against_brute("topk", x, sets, brute, *backend, causal, logit);
        if (HasFailure()) return;
    }
}

TEST_P(SparseLayoutProperty, BlockSelMatchesDefinition) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    int checked = 0;
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
        Draw draw{seed + 7000};
        const int n = draw(1, 220), H = draw(1, 3), d = draw(1, 8), b = draw(1, 40), top = draw(0, 6);
        const bool causal = draw(0, 2) != 0, pooled = draw(0, 3) == 0;
        std::cout << "[case] backend=" << GetParam() << " blocksel seed=" << seed << " n=" << n << " H=" << H << " b=" << b
                  << " n_top=" << top << " causal=" << causal << " gate=" << (pooled ? "pooled" : "query") << "\n";
        // With b a power of two dividing n, integer entries make every block mean and gate exact in float, so the
        // gate's ties (to the lower J) are tested too; other draws keep Gaussian entries and skip a near tie at a cut.
        const bool exact = std::has_single_bit(unsigned(b)) && n % b == 0;
        Heads x = random_heads(H, n, d, 17, seed);
        if (exact)
            for (Tensor3* t : {&x.Q, &x.K})
                for (int h = 0; h < H; ++h)
                    for (int i = 0; i < n; ++i)
                        for (int c = 0; c < d; ++c) t->at(h, i, c) = std::round(std::clamp(t->at(h, i, c) * 2.0f, -2.0f, 2.0f));
        bool near_tie = false;
        // MoBA (Lu et al. 2025): query i scores key block J by q_i·mean(K_J) and keeps its top n blocks besides its
        // own block (MoBA's gate +∞) and block 0 (NSA's initial block); gate=pooled scores with the mean query of the
        // query's block instead.
        const int nb = (n + b - 1) / b;
        auto mean_row = [&](const Tensor3& t, int h, int B, int c) {
            double sum = 0;
            const int i0 = B * b, i1 = std::min(n, i0 + b);
            for (int i = i0; i < i1; ++i) sum += t.at(h, i, c);
            return sum / (i1 - i0);
        };
        std::vector<std::vector<std::vector<char>>> keep(H, std::vector<std::vector<char>>(n, std::vector<char>(nb, 0)));
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < n; ++i) {
                const int I = i / b;
                std::vector<std::pair<double, int>> gate;
                for (int J = 1; J < (causal ? I : nb); ++J) {
                    if (J == I) continue;
                    double g = 0;
                    for (int c = 0; c < d; ++c) g += (pooled ? mean_row(x.Q, h, I, c) : x.Q.at(h, i, c)) * mean_row(x.K, h, J, c);
                    gate.push_back({-g, J});
                }
                std::sort(gate.begin(), gate.end());
                for (size_t t = 0; t < gate.size() && int(t) < top; ++t) keep[h][i][gate[t].second] = 1;
                // A cut between two gates within float rounding could fall either way: such a draw proves nothing.
                if (!exact && top > 0 && size_t(top) < gate.size() && std::fabs(gate[size_t(top - 1)].first - gate[size_t(top)].first) < 1e-4)
                    near_tie = true;
            }
        if (near_tie) continue;
        ++checked;
        const ReasonFn brute = [&](int h, int i, int j) {
            if (causal && j > i) return Reason::None;
            const int I = i / b, J = j / b;
            if (J == I) return Reason::Local;
            if (J == 0) return Reason::Sink;
            return keep[h][i][J] ? Reason::Selected : Reason::None;
        };
        check_against_brute("blocksel", x,
                            {{"block", std::to_string(b)}, {"top_blocks", std::to_string(top)}, {"causal", causal ? "1" : "0"},
                             {"gate", pooled ? "pooled" : "query"}},
                            brute, *backend, causal);
        if (HasFailure()) return;
    }
    EXPECT_GE(checked, kSeeds * 3 / 4) << "too many draws had a near tie at the cut";
}

TEST_P(SparseLayoutProperty, VSlashMatchesDefinition) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    int checked = 0;
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
        Draw draw{seed + 8000};
        const int n = draw(1, 260), H = draw(1, 3), d = draw(1, 16), q = draw(1, n + 2), V = draw(0, 60), S = draw(0, 130);
        const Heads x = random_heads(H, n, d, 19, seed);
        // Jiang et al. 2024: the last q queries' causal softmax rows, summed down each column and along each
        // diagonal i − j = o; keep the V columns and S diagonals with the most mass (ties to the lower index).
        // MInference's code raises V to 30 and S to 50 (at most n) and gives the first 30 columns and the 100
        // nearest diagonals infinite mass, so they are kept first.
        const int V_kept = std::min(n, std::max(V, 30)), S_kept = std::min(n, std::max(S, 50));
        const double s = 1.0 / std::sqrt(double(d));
        std::vector<std::vector<char>> col(H, std::vector<char>(n, 0)), off(H, std::vector<char>(n, 0));
        bool near_tie = false;
        auto pick = [&](const std::vector<double>& sums, int keep, std::vector<char>& out) {
            std::vector<std::pair<double, int>> order;
            for (int j = 0; j < n; ++j) order.push_back({-sums[size_t(j)], j});
            std::sort(order.begin(), order.end());
            for (int t = 0; t < std::min(keep, n); ++t) out[size_t(order[size_t(t)].second)] = 1;
            // A cut between two sums within float rounding could fall either way: such a draw proves nothing.
            if (keep > 0 && keep < n && std::fabs(order[size_t(keep - 1)].first - order[size_t(keep)].first) < 1e-5) near_tie = true;
        };
        for (int h = 0; h < H; ++h) {
            std::vector<double> column(n, 0.0), slash(n, 0.0);
            for (int i = std::max(0, n - q); i < n; ++i) {
                std::vector<double> logits(size_t(i) + 1);
                for (int j = 0; j <= i; ++j) {
                    double dot = 0;
                    for (int c = 0; c < d; ++c) dot += double(x.Q.at(h, i, c)) * x.K.at(h, j, c);
                    logits[size_t(j)] = s * dot;
                }
                const double top = *std::max_element(logits.begin(), logits.end());
                double total = 0;
                for (double l : logits) total += std::exp(l - top);
                for (int j = 0; j <= i; ++j) {
                    const double prob = std::exp(logits[size_t(j)] - top) / total;
                    column[size_t(j)] += prob, slash[size_t(i - j)] += prob;
                }
            }
            for (int j = 0; j < std::min(30, n); ++j) column[size_t(j)] = INFINITY;
            for (int o = 0; o < std::min(100, n); ++o) slash[size_t(o)] = INFINITY;
            pick(column, V_kept, col[size_t(h)]);
            pick(slash, S_kept, off[size_t(h)]);
        }
        if (near_tie) continue;
        ++checked;
        std::cout << "[case] backend=" << GetParam() << " vslash seed=" << seed << " n=" << n << " H=" << H << " q=" << q
                  << " V=" << V << " S=" << S << "\n";
        const ReasonFn brute = [&](int h, int i, int j) {
            if (j > i) return Reason::None;
            if (col[size_t(h)][size_t(j)]) return Reason::Vertical;
            return off[size_t(h)][size_t(i - j)] ? Reason::Slash : Reason::None;
        };
        check_against_brute("vslash", x,
                            {{"last_queries", std::to_string(q)}, {"verticals", std::to_string(V)}, {"slashes", std::to_string(S)}},
                            brute, *backend, true);
        if (HasFailure()) return;
    }
    EXPECT_GE(checked, kSeeds * 3 / 4) << "too many draws had a near tie at the cut";
}

/// "a,b,c" of a list, or "none".
std::string list_text(const std::vector<int>& list) {
    std::string text;
    for (size_t k = 0; k < list.size(); ++k) text += (k ? "," : "") + std::to_string(list[k]);
    return list.empty() ? "none" : text;
}

TEST_P(SparseLayoutProperty, ComposeMatchesDefinition) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
        Draw draw{seed + 9000};
        const int n = draw(1, 230), H = draw(1, 3), d = draw(1, 12);
        // Each term is off about a third of the time; every eighth draw has none (every cell, then the filters).
        const bool none = seed % 8 == 7;
        const auto maybe = [&](int lo, int hi) { return none || draw(0, 2) == 0 ? 0 : draw(lo, hi); };
        const int w = maybe(1, n + 3), s = maybe(1, 9), B = maybe(1, n + 2);
        std::vector<int> G, V, S;
        for (int k = none ? 0 : draw(0, 2); k > 0; --k) G.push_back(draw(0, n + 2));
        for (int k = none ? 0 : draw(0, 3); k > 0; --k) V.push_back(draw(0, n + 2));
        for (int k = none ? 0 : draw(0, 3); k > 0; --k) S.push_back(draw(-n, n));
        const bool causal = draw(0, 1) == 1;
        std::cout << "[case] backend=" << GetParam() << " compose seed=" << seed << " n=" << n << " H=" << H
                  << " w=" << w << " s=" << s << " B=" << B << " G=" << list_text(G) << " V=" << list_text(V)
                  << " S=" << list_text(S) << " causal=" << causal << "\n";
        const Heads x = random_heads(H, n, d, 17, seed);
        const auto in = [](const std::vector<int>& list, int v) { return std::find(list.begin(), list.end(), v) != list.end(); };
        // docs/VARIANTS.md "Composed masks": the union of the terms in colouring order, every cell when no term is
        // given, cut by j ≤ i when causal.
        const bool any_term = w || s || B || !G.empty() || !V.empty() || !S.empty();
        const ReasonFn brute = [&](int, int i, int j) {
            if (causal && j > i) return Reason::None;
            if (in(G, i) || in(G, j)) return Reason::Global;
            if (j < s) return Reason::Sink;
            if (std::abs(i - j) < w) return Reason::Window;
            if (B > 0 && i / B == j / B) return Reason::Local;
            if (in(V, j)) return Reason::Vertical;
            if (in(S, i - j)) return Reason::Slash;
            return any_term ? Reason::None : Reason::Dense;
        };
        check_against_brute("compose", x,
                            {{"window", std::to_string(w)},
                             {"sinks", std::to_string(s)},
                             {"blocks", std::to_string(B)},
                             {"global", list_text(G)},
                             {"vertical", list_text(V)},
                             {"slash", list_text(S)},
                             {"causal", causal ? "1" : "0"}},
                            brute, *backend, causal);
        if (HasFailure()) return;
    }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, SparseLayoutProperty, testing::ValuesIn(kernel_suite_backends()),
                         [](const testing::TestParamInfo<std::string>& info) { return backend_test_name(info.param); });

}  // namespace
}  // namespace attnscope::test
