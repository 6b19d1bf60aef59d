// `lsh` (Reformer) on every backend: the limit case equals full, a brute-force reference (explicit sets per
// round, softmax with the self-mask and duplicate counts, log-sum-exp over rounds) matches for random n,
// rounds, buckets, chunks and seeds, seeds reproduce bit for bit, P̃ is consistent with O.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "tests/unit/backend_suite.h"
#include "core/backend/shared/random.h"
#include "core/session/experiment.h"
#include "core/variants/registry.h"

namespace attnscope::test {
namespace {

Tensor3 random_tensor(int H, int n, int d, uint64_t seed, float scale = 1.0f) {
    Tensor3 t(H, n, d);
    for (int64_t k = 0; k < t.size(); ++k) t.data()[k] = scale * static_cast<float>(rng::normal(seed, 11, k));
    return t;
}

Heads random_heads(int H, int n, int d, int dv, uint64_t seed, float scale = 1.0f) {
    Heads in;
    in.Q = random_tensor(H, n, d, seed * 3 + 1, scale), in.K = random_tensor(H, n, d, seed * 3 + 2, scale);
    in.V = random_tensor(H, n, dv, seed * 3 + 3);
    return in;
}

struct LshCase {
    int n, H, d, rounds, buckets, chunk, look_back;
    bool shared, causal;
    int seed;
};

std::ostream& operator<<(std::ostream& os, const LshCase& c) {
    return os << "n=" << c.n << " H=" << c.H << " d=" << c.d << " rounds=" << c.rounds << " buckets=" << c.buckets
              << " chunk=" << c.chunk << " look_back=" << c.look_back << " shared_qk=" << c.shared << " causal=" << c.causal
              << " seed=" << c.seed;
}

RunResult run_lsh(const Heads& in, const LshCase& c, Backend& backend, bool want_matrix) {
    const Variant& v = find_variant("lsh");
    VariantRequest req = parse_variant_request(
        "lsh", {{"rounds", std::to_string(c.rounds)}, {"buckets", std::to_string(c.buckets)},
                {"chunk", std::to_string(c.chunk)}, {"look_back", std::to_string(c.look_back)},
                {"shared_qk", c.shared ? "1" : "0"}, {"causal", c.causal ? "1" : "0"}, {"seed", std::to_string(c.seed)}});
    RunOptions options;
    options.explain = want_matrix;
    return v.run(in, v.resolve(req.params, in.shape()), options, backend);
}

Tensor3 exact_attention(const Heads& in, bool causal, Backend& backend, Tensor3* P = nullptr) {
    Tensor3 O(in.heads(), in.n(), in.dv());
    DenseAttentionArgs a;
    a.Q = &in.Q, a.K = &in.K, a.V = &in.V, a.O = &O, a.P = P, a.causal = causal;
    a.scale = static_cast<float>(1.0 / std::sqrt(double(in.d())));
    backend.dense_attention(a);
    return O;
}

class LshBackend : public testing::TestWithParam<std::string> {};

// n_b = 1 and one chunk ≥ n (shared_qk off, so no self-mask): every round attends to everything → full.
TEST_P(LshBackend, OneBucketOneChunkEqualsFull) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (int n : {1, 37, 200})
        for (int rounds : {1, 3})
            for (bool causal : {false, true}) {
                const LshCase c{n, 2, 16, rounds, 1, std::max(n, 64), 1, false, causal, 5};
                const double tol = 2e-6;
                std::cout << "[case] backend=" << GetParam() << " " << c << " tol=" << tol << "\n";
                const Heads in = random_heads(c.H, n, c.d, 8, 9, 1.0f);
                Tensor3 P(c.H, n, n);
                const Tensor3 O_full = exact_attention(in, causal, *backend, &P);
                const RunResult r = run_lsh(in, c, *backend, true);
                EXPECT_LE(rel_err(r.O, O_full), tol) << c;
                ASSERT_TRUE(r.P_eff.has_value());
                EXPECT_LE(rel_err(*r.P_eff, P), tol) << c;
                EXPECT_NEAR(*r.structure.density, 1.0, 1e-12);
            }
}

// ---- brute-force reference: explicit sets, no shared code with the implementation beyond the inputs ----

struct Reference {
    Tensor3 O, P;                        // (H, n, dv), (H, n, n) softmax over the union of the rounds' sets
    std::vector<std::vector<int>> perm;  // [r·H + h] sorted positions of the queries
};

Reference brute_force(const Heads& in, const LshCase& c, const std::vector<std::vector<int>>& buckets) {
    const int H = in.heads(), n = in.n(), d = in.d(), dv = in.dv(), R = c.rounds;
    const double s = 1.0 / std::sqrt(double(d));
    const int nc = (n + c.chunk - 1) / c.chunk;
    Reference ref;
    ref.O = Tensor3(H, n, dv), ref.P = Tensor3(H, n, n);
    ref.perm.assign(size_t(R) * H, {});
    for (int h = 0; h < H; ++h) {
        // keys: L2-normalised queries under shared QK
        std::vector<std::vector<double>> keys(n, std::vector<double>(d));
        for (int j = 0; j < n; ++j) {
            double norm = 0;
            for (int k = 0; k < d; ++k) norm += double(in.Q.at(h, j, k)) * in.Q.at(h, j, k);
            norm = std::sqrt(norm);
            for (int k = 0; k < d; ++k)
                keys[j][k] = c.shared ? (norm > 0 ? in.Q.at(h, j, k) / norm : 0.0) : double(in.K.at(h, j, k));
        }
        // sets[r][i] = allowed key positions of query i in round r
        std::vector<std::vector<std::set<int>>> sets(R, std::vector<std::set<int>>(n));
        for (int r = 0; r < R; ++r) {
            auto sorted = [&](const std::vector<int>& b) {
                std::vector<int> order(n);
                for (int i = 0; i < n; ++i) order[i] = i;
                std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return b[x] < b[y]; });
                return order;
            };
            const std::vector<int> order_q = sorted(buckets[(r * H + h) * 2]);
            const std::vector<int> order_k = c.shared ? order_q : sorted(buckets[(r * H + h) * 2 + 1]);
            ref.perm[r * H + h] = order_q;
            for (int slot = 0; slot < n; ++slot) {
                const int i = order_q[slot], t = slot / c.chunk;
                std::set<int> chunks;
                for (int b = 0; b <= c.look_back; ++b) chunks.insert(((t - b) % nc + nc) % nc);
                for (int kslot = 0; kslot < n; ++kslot)
                    if (chunks.count(kslot / c.chunk) && !(c.causal && order_k[kslot] > i)) sets[r][i].insert(order_k[kslot]);
            }
        }
        for (int i = 0; i < n; ++i) {
            std::vector<double> L(R, -INFINITY);
            std::vector<std::vector<double>> O_r(R, std::vector<double>(dv, 0.0));
            std::vector<std::vector<std::pair<int, double>>> w(R);
            for (int r = 0; r < R; ++r) {
                std::vector<std::pair<int, double>> scores;
                for (int j : sets[r][i]) {
                    int count = 0;
                    for (int r2 = 0; r2 < R; ++r2) count += sets[r2][i].count(j) ? 1 : 0;
                    double dot = 0;
                    for (int k = 0; k < d; ++k) dot += double(in.Q.at(h, i, k)) * keys[j][k];
                    const double score = (c.shared && j == i ? -1e5 : s * dot) - std::log(double(count));
                    scores.push_back({j, score});
                }
                if (scores.empty()) continue;
                double m = -INFINITY, sum = 0;
                for (auto& [j, sc] : scores) m = std::max(m, sc);
                for (auto& [j, sc] : scores) sum += std::exp(sc - m);
                L[r] = m + std::log(sum);
                for (auto& [j, sc] : scores) {
                    const double p = std::exp(sc - L[r]);
                    w[r].push_back({j, p});
                    for (int k = 0; k < dv; ++k) O_r[r][k] += p * in.V.at(h, j, k);
                }
            }
            double m = -INFINITY, sum = 0;
            for (double l : L) m = std::max(m, l);
            if (m == -INFINITY) continue;
            for (double l : L) sum += std::exp(l - m);
            const double lse = m + std::log(sum);
            for (int r = 0; r < R; ++r) {
                if (L[r] == -INFINITY) continue;
                const double weight = std::exp(L[r] - lse);
                for (int k = 0; k < dv; ++k) ref.O.at(h, i, k) += static_cast<float>(weight * O_r[r][k]);
                for (auto& [j, p] : w[r]) ref.P.at(h, i, j) += static_cast<float>(weight * p);
            }
        }
    }
    return ref;
}

/// Buckets recomputed in double from the exposed rotations: argmax over [xR; −xR].
int reference_bucket(const Tensor3& X, int h, int i, const Tensor3& rotations, int round, int nb, double& margin) {
    if (nb == 1) {
        margin = INFINITY;
        return 0;
    }
    const int half = nb / 2, d = X.cols();
    std::vector<double> v(nb);
    for (int b = 0; b < half; ++b) {
        double dot = 0;
        for (int k = 0; k < d; ++k) dot += double(X.at(h, i, k)) * rotations.at(round, k, b);
        v[b] = dot, v[half + b] = -dot;
    }
    const int best = static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
    std::vector<double> sorted = v;
    std::sort(sorted.rbegin(), sorted.rend());
    margin = sorted[0] - sorted[1];
    return best;
}

std::vector<LshCase> random_cases() {
    std::vector<LshCase> out;
    for (uint64_t k = 0; k < 24; ++k) {
        LshCase c;
        c.n = 1 + static_cast<int>(rng::below(99, 1, k, 180));
        c.H = 1 + static_cast<int>(rng::below(99, 2, k, 2));
        c.d = 1 + static_cast<int>(rng::below(99, 3, k, 16));
        c.rounds = 1 + static_cast<int>(rng::below(99, 4, k, 5));
        const int bucket_choices[] = {1, 2, 4, 8, 16};
        c.buckets = bucket_choices[rng::below(99, 5, k, 5)];
        c.chunk = 1 + static_cast<int>(rng::below(99, 6, k, 40));
        c.look_back = static_cast<int>(rng::below(99, 7, k, 3));
        c.shared = rng::below(99, 8, k, 3) != 0;
        c.causal = rng::below(99, 9, k, 2) != 0;
        c.seed = static_cast<int>(rng::below(99, 10, k, 1000));
        out.push_back(c);
    }
    out.push_back({130, 2, 8, 4, 4, 32, 1, true, false, 7});  // n not a multiple of c, default-like shape
    out.push_back({64, 1, 4, 2, 2, 64, 1, true, true, 3});    // one chunk, causal, shared
    return out;
}

TEST_P(LshBackend, MatchesBruteForceReference) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (const LshCase& c : random_cases()) {
        const double tol_out = 2e-5, tol_p = 2e-5;
        std::cout << "[case] backend=" << GetParam() << " " << c << " tol_out=" << tol_out << " tol_P=" << tol_p << "\n";
        const Heads in = random_heads(c.H, c.n, c.d, 5, 100 + c.seed, 2.0f);
        const RunResult r = run_lsh(in, c, *backend, true);
        const int H = c.H, n = c.n;
        // The hash agrees with an independent double-precision argmax wherever the top two are not tied.
        std::vector<std::vector<int>> buckets;
        ASSERT_TRUE(r.structure.lsh.has_value());
        const LshBuckets& lsh = *r.structure.lsh;
        ASSERT_EQ(lsh.rounds, c.rounds);
        ASSERT_EQ(lsh.bucket_k.empty(), c.shared);
        for (int rr = 0; rr < c.rounds; ++rr) {
            const std::vector<int>& bq = lsh.bucket_q[rr];
            const std::vector<int>& bk = lsh.keys_bucket(rr);
            ASSERT_EQ(bq.size(), size_t(H) * n);
            for (int h = 0; h < H; ++h) {
                buckets.emplace_back(bq.begin() + h * n, bq.begin() + (h + 1) * n);
                buckets.emplace_back(bk.begin() + h * n, bk.begin() + (h + 1) * n);
                if (c.buckets == 1) continue;
                const Tensor3& rot = lsh.rotations;
                ASSERT_EQ(rot.cols(), c.buckets / 2);
                for (int i = 0; i < n; ++i) {
                    double margin = 0;
                    const int want = reference_bucket(in.Q, h, i, rot, rr, c.buckets, margin);
                    if (margin > 1e-4) {
                        EXPECT_EQ(bq[h * n + i], want) << c << " round " << rr << " pos " << i;
                    }
                    if (!c.shared) {
                        const int want_k = reference_bucket(in.K, h, i, rot, rr, c.buckets, margin);
                        if (margin > 1e-4) {
                            EXPECT_EQ(bk[h * n + i], want_k) << c << " key pos " << i;
                        }
                    }
                }
            }
        }
        const Reference ref = brute_force(in, c, buckets);
        for (int rr = 0; rr < c.rounds; ++rr) {
            const std::vector<int>& perm = lsh.perm_q[rr];
            for (int h = 0; h < H; ++h)
                EXPECT_TRUE(std::equal(ref.perm[rr * H + h].begin(), ref.perm[rr * H + h].end(), perm.begin() + h * n))
                    << c << " sorted order of round " << rr << " head " << h;
        }
        EXPECT_LE(rel_err(r.O, ref.O), tol_out) << c;
        ASSERT_TRUE(r.P_eff.has_value());
        EXPECT_LE(rel_err(*r.P_eff, ref.P), tol_p) << c;
        ASSERT_TRUE(r.O.all_finite());
        // P̃ is the operator the output applies: P̃·V = O, rows of P̃ sum to 1, causal rows stop at the diagonal.
        for (int h = 0; h < H; ++h) {
            const MatrixRM PV = r.P_eff->head(h) * in.V.head(h);
            EXPECT_LE((PV - r.O.head(h)).norm(), 1e-4 * (1.0 + r.O.head(h).norm())) << c;
            for (int i = 0; i < n; ++i) {
                // A row is empty only when causal masking removed every key of its sets (separate Q, K).
                const float want_sum = ref.P.head(h).row(i).sum() > 0.5f ? 1.0f : 0.0f;
                EXPECT_NEAR(r.P_eff->head(h).row(i).sum(), want_sum, 1e-5) << c << " row " << i;
                if (c.causal && i + 1 < n) {
                    EXPECT_EQ(r.P_eff->head(h).row(i).tail(n - i - 1).cwiseAbs().maxCoeff(), 0.0f);
                }
            }
        }
        ASSERT_TRUE(r.structure.mask.has_value());
        ASSERT_TRUE(r.structure.allowed_lse.has_value());
    }
}

// allowed_lse = log Σ over the mask's cells of exp(q·k/√d) on the input's own Q, K (mass_recall's contract).
TEST_P(LshBackend, AllowedLseIsTheMaskUnderExactScale) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (const LshCase& c : {LshCase{150, 2, 8, 3, 4, 16, 1, true, false, 1}, LshCase{97, 1, 6, 2, 8, 10, 2, false, true, 2}}) {
        std::cout << "[case] backend=" << GetParam() << " " << c << " tol=1e-5\n";
        const Heads in = random_heads(c.H, c.n, c.d, 4, 300 + c.seed);
        const RunResult r = run_lsh(in, c, *backend, true);
        const double s = 1.0 / std::sqrt(double(c.d));
        // Under shared QK the keys LSH scores are the L2-normalised queries: the mass is of that model.
        auto key = [&](int h, int j) -> Eigen::VectorXd {
            const Eigen::VectorXd k = (c.shared ? in.Q : in.K).head(h).row(j).cast<double>();
            return c.shared ? Eigen::VectorXd(k / k.norm()) : k;
        };
        double cells = 0;
        for (int h = 0; h < c.H; ++h)
            for (int i = 0; i < c.n; ++i) {
                double sum = 0;
                for (int j = 0; j < c.n; ++j) {
                    if (r.structure.mask->at(h, i, j) == Reason::None) continue;
                    EXPECT_EQ(r.structure.mask->at(h, i, j), Reason::Bucket);
                    EXPECT_GT(r.P_eff->at(h, i, j), 0.0f);
                    sum += std::exp(s * in.Q.head(h).row(i).cast<double>().dot(key(h, j)));
                    cells += 1;
                }
                if (sum == 0) {
                    EXPECT_EQ(r.structure.allowed_lse->at(h, i, 0), -INFINITY) << c << " empty row " << i;
                } else {
                    EXPECT_NEAR(r.structure.allowed_lse->at(h, i, 0), std::log(sum), 1e-5) << c << " row " << i;
                }
            }
        const double total = c.causal ? 0.5 * c.n * (c.n + 1.0) : double(c.n) * c.n;
        EXPECT_NEAR(*r.structure.density, cells / (c.H * total), 1e-12);
    }
}

TEST_P(LshBackend, SameSeedSameBitsOtherSeedDiffers) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    const LshCase c{300, 2, 16, 4, 8, 32, 1, true, false, 42};
    std::cout << "[case] backend=" << GetParam() << " " << c << " vs seed 43, bitwise\n";
    const Heads in = random_heads(c.H, c.n, c.d, 16, 77);
    const RunResult a = run_lsh(in, c, *backend, false), b = run_lsh(in, c, *backend, false);
    EXPECT_EQ(std::memcmp(a.O.data(), b.O.data(), size_t(a.O.bytes())), 0);
    EXPECT_EQ(a.structure.lsh->perm_q.at(3), b.structure.lsh->perm_q.at(3));
    LshCase other = c;
    other.seed = 43;
    const RunResult o = run_lsh(in, other, *backend, false);
    EXPECT_NE(o.structure.lsh->bucket_q.at(0), a.structure.lsh->bucket_q.at(0));
    EXPECT_NE(std::memcmp(a.O.data(), o.O.data(), size_t(a.O.bytes())), 0);
}

// n not a multiple of c: the last chunk is short, nothing crashes, a note says so; tiny and degenerate inputs.
TEST_P(LshBackend, PaddingAndDegenerateInputs) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    {
        const LshCase c{1000, 2, 32, 4, 16, 64, 1, true, false, 0};
        std::cout << "[case] backend=" << GetParam() << " " << c << " (1000 = 15·64 + 40)\n";
        const Heads in = random_heads(c.H, c.n, c.d, 32, 1);
        const RunResult r = run_lsh(in, c, *backend, false);
        EXPECT_TRUE(r.O.all_finite());
        bool noted = false;
        for (const std::string& note : r.structure.notes) noted = noted || note.find("padded to 1024") != std::string::npos;
        EXPECT_TRUE(noted);
        ASSERT_TRUE(r.structure.lsh.has_value());
        EXPECT_EQ(r.structure.lsh->chunk_len, 64);
        EXPECT_EQ(r.structure.lsh->rounds, 4);
    }
    for (const LshCase& c : {LshCase{1, 1, 1, 4, 2, 64, 1, true, false, 0}, LshCase{1, 1, 1, 2, 2, 1, 1, true, true, 0},
                             LshCase{50, 1, 1, 3, 2, 7, 1, true, true, 0}}) {
        std::cout << "[case] backend=" << GetParam() << " " << c << " degenerate\n";
        const Heads in = random_heads(c.H, c.n, c.d, 3, 2);
        const RunResult r = run_lsh(in, c, *backend, true);
        EXPECT_TRUE(r.O.all_finite()) << c;
        if (c.n == 1) {
            EXPECT_LE(rel_err(r.O, in.V), 1e-6) << "a lone token can only attend to itself";
        }
    }
    {
        // All-equal keys and huge logits: stable softmax, no NaN.
        const LshCase c{200, 1, 8, 2, 4, 32, 1, false, false, 1};
        Heads in = random_heads(1, 200, 8, 8, 3, 1e4f);
        for (int i = 0; i < 200; ++i) in.K.head(0).row(i) = in.K.head(0).row(0);
        std::cout << "[case] backend=" << GetParam() << " " << c << " equal keys, logits ~1e4\n";
        const RunResult r = run_lsh(in, c, *backend, true);
        EXPECT_TRUE(r.O.all_finite() && r.P_eff->all_finite());
    }
}

// lsh_attention with O combines the rounds in the same call exactly as lsh_combine combines the O_r it returns:
// the variant asks for O so that a device keeps the O_r where it computed them.
TEST_P(LshBackend, CombiningInTheCallEqualsCombiningTheReturnedRounds) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (const bool causal : {false, true}) {
        const int H = 2, n = 300, d = 32, dv = 24, R = 3;
        std::cout << "[case] backend=" << GetParam() << " lsh_attention(O) vs lsh_attention(O_rounds) + lsh_combine, H=" << H
                  << " n=" << n << " d=" << d << " dv=" << dv << " R=" << R << " causal=" << causal << " tol=1e-6\n";
        const Heads in = random_heads(H, n, d, dv, 7);
        const Tensor3 rotations = random_tensor(R, d, 4, 8);
        std::vector<int> buckets, perm;
        LshHashArgs hash;
        hash.X = &in.Q, hash.rotations = &rotations, hash.rounds = R, hash.n_buckets = 8, hash.buckets = &buckets;
        hash.perm = &perm;
        backend->lsh_hash(hash);
        LshAttentionArgs a;
        a.Q = &in.Q, a.K = &in.K, a.V = &in.V, a.perm_q = &perm, a.perm_k = &perm, a.rounds = R, a.chunk_len = 32;
        a.scale = 1.0f / std::sqrt(float(d)), a.causal = causal, a.self_mask = true;
        Tensor3 O_rounds(R, H * n, dv), lse_rounds(R, H * n, 1), lse_in_call(R, H * n, 1, NAN);
        Tensor3 O_combined(H, n, dv), O_in_call(H, n, dv, NAN);
        a.O_rounds = &O_rounds, a.lse_rounds = &lse_rounds;
        backend->lsh_attention(a);
        LshCombineArgs combine;
        combine.O_rounds = &O_rounds, combine.lse_rounds = &lse_rounds, combine.O = &O_combined;
        backend->lsh_combine(combine);
        a.O_rounds = nullptr, a.lse_rounds = &lse_in_call, a.O = &O_in_call;
        backend->lsh_attention(a);
        ASSERT_TRUE(O_in_call.all_finite()) << "rows of the combined O were left unwritten";
        EXPECT_LE(rel_err(O_in_call, O_combined), 1e-6);
        EXPECT_LE(rel_err(lse_in_call, lse_rounds), 1e-6);
        EXPECT_GT(rel_err(O_in_call, in.V), 1e-2) << "O must be the attention's output, not V";
    }
}

TEST(LshVariant, RejectsOddBucketsWithAdvice) {
    Heads in = random_heads(1, 64, 4, 4, 1);
    const Variant& v = find_variant("lsh");
    const VariantRequest req = parse_variant_request("lsh", {{"buckets", "3"}});
    try {
        v.resolve(req.params, in.shape());
        FAIL() << "odd bucket count accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("must be 1 or even"), std::string::npos) << e.what();
    }
    const Params p = v.resolve(parse_variant_request("lsh", {}).params, random_heads(1, 1000, 4, 4, 1).shape());
    EXPECT_EQ(p.get_int("buckets"), 16) << "auto n_b = n/c rounded to even (c = 64 from n = 512 up)";
    // A short text keeps several chunks: c follows n (n/8 as a power of two), and n_b = n/c.
    const Params short_text = v.resolve(parse_variant_request("lsh", {}).params, random_heads(1, 81, 4, 4, 1).shape());
    EXPECT_EQ(short_text.get_int("chunk"), 8);
    EXPECT_EQ(short_text.get_int("buckets"), 10);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, LshBackend, testing::ValuesIn(suite_backends()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace attnscope::test
