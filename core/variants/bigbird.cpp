// attnscope — `bigbird` (Zaheer et al. 2020, BigBird-ITC): block-sparse attention with blocks of b.
// With I = ⌊i/b⌋, J = ⌊j/b⌋ and nb = ⌈n/b⌉ blocks:
//   Global: I or J is a global block — the first ⌈g/2⌉ and the last ⌊g/2⌋ blocks (g = 2: first and last,
//           the paper's ITC setting); global rows attend everything, every row attends global columns
//   Window: |I − J| ≤ (window_blocks − 1)/2 (3 blocks: the block itself and one on each side)
//   Random: r key blocks per non-global query block row, drawn without replacement among the blocks not
//           already global or window (J ≤ I when causal), independently per head, from rng::bits(seed,
//           kRandomStream + h, I·2³² + attempt) — the same seed gives the same blocks on every backend
//   causal: every cell also needs j ≤ i
// Composed (mask_compose.h) as (global ∪ window ∪ random) ∩ causal: a cell in several groups is coloured Global,
// then Window, then Random. n not a multiple of b: the last block is partial (padding masked). Layout block = b.
#include <algorithm>
#include <cmath>
#include <utility>

#include "core/backend/shared/random.h"
#include "core/variants/common_params.h"
#include "core/variants/modifiers.h"
#include "core/variants/pattern_variant.h"

namespace attnscope {

namespace {

constexpr uint64_t kRandomStream = 0xB16B1Dull << 16;

/// The sliding window in blocks: |⌊i/b⌋ − ⌊j/b⌋| ≤ half, coloured Window.
struct BlockBand {
    int n, b, half;
    Reason reason(int, int i, int j) const { return std::abs(i / b - j / b) <= half ? Reason::Window : Reason::None; }
    void candidates(int, int I, std::vector<BlockCandidate>& out) const {
        for (int J = std::max(0, I - half); J <= std::min(block_count(n, b) - 1, I + half); ++J) out.push_back({J, true});
    }
    bool row_interval(int, int i, int& lo, int& hi) const {
        const int I = i / b;
        lo = int(std::max<int64_t>(0, int64_t(I - half) * b)), hi = int(std::min<int64_t>(n - 1, int64_t(I + half + 1) * b - 1));
        return true;
    }
};

/// The r random key blocks of every (layout head, query block row), coloured Random; drawn by draw_random().
struct RandomKeyBlocks {
    int n, b, nb, half;           // half = (window_blocks − 1)/2
    bool causal;
    std::vector<uint8_t> global;  // (nb) 1 for global blocks
    int heads = 1;                // layout heads holding random blocks
    int r = 0;                    // random blocks per row
    std::vector<int> random;      // (heads, nb, r) key blocks, −1 when fewer candidates exist

    const int* random_row(int h, int I) const { return random.data() + (static_cast<size_t>(h) * nb + I) * r; }
    Reason reason(int h, int i, int j) const {
        const int* row = random_row(h, i / b);
        return std::find(row, row + r, j / b) != row + r ? Reason::Random : Reason::None;
    }
    void candidates(int h, int I, std::vector<BlockCandidate>& out) const {
        for (int k = 0; k < r; ++k)
            if (random_row(h, I)[k] >= 0) out.push_back({random_row(h, I)[k], true});
    }
    /// Row i's random blocks inside [j0, j0 + ext) (HasRowBits).
    int64_t row_bits(int h, int i, int j0, int ext, uint64_t* words) const {
        int64_t count = 0;
        for (int k = 0; k < r; ++k) {
            const int J = random_row(h, i / b)[k];
            if (J < 0) continue;
            const int c0 = std::max(J * b, j0) - j0, c1 = std::min(std::min((J + 1) * b, n), j0 + ext) - j0;
            if (c0 < c1) set_bit_range(words, c0, c1), count += c1 - c0;
        }
        return count;
    }

    bool eligible(int I, int J) const { return !global[J] && std::abs(I - J) > half && (!causal || J <= I); }

    /// Draws the random blocks of every (head, block row) without replacement among the eligible blocks:
    /// rejection sampling on counters I·2³² + attempt when eligible blocks are plentiful, otherwise a partial
    /// Fisher–Yates over the list of eligible blocks. Both depend only on (seed, head, I).
    void draw_random(uint64_t seed) {
        random.assign(static_cast<size_t>(heads) * nb * r, -1);
        const bool parallel = int64_t(heads) * nb * nb >= (int64_t(1) << 20);  // small draws stay serial
#pragma omp parallel for collapse(2) schedule(dynamic) if (parallel)
        for (int h = 0; h < heads; ++h)
            for (int I = 0; I < nb; ++I) {
                if (global[I] || r == 0) continue;
                const int span = causal ? I + 1 : nb;
                int* row = random.data() + (static_cast<size_t>(h) * nb + I) * r;
                const uint64_t stream = kRandomStream + static_cast<uint64_t>(h);
                const uint64_t base = static_cast<uint64_t>(I) << 32;
                int excluded = 2 * half + 1;
                for (int J = 0; J < nb; ++J) excluded += global[J];
                if (span >= 4 * (r + excluded)) {
                    int got = 0;
                    for (uint64_t attempt = 0; got < r; ++attempt) {
                        const int J = static_cast<int>(rng::bits(seed, stream, base + attempt) % span);
                        if (eligible(I, J) && std::find(row, row + got, J) == row + got) row[got++] = J;
                    }
                    continue;
                }
                std::vector<int> pool;
                for (int J = 0; J < span; ++J)
                    if (eligible(I, J)) pool.push_back(J);
                const int take = std::min<int>(r, static_cast<int>(pool.size()));
                for (int k = 0; k < take; ++k) {
                    const int pick = k + static_cast<int>(rng::bits(seed, stream, base + k) % (pool.size() - k));
                    std::swap(pool[k], pool[pick]);
                    row[k] = pool[k];
                }
            }
    }
};

/// Global blocks first, then the window, then the random blocks; causal cuts all three.
using BigBirdPattern = Restricted<AnyOf<Globals, BlockBand, RandomKeyBlocks>, Causal>;

/// The positions inside the blocks flagged global (a flag per block of b over n positions).
std::vector<int> positions_of_blocks(int n, int b, const std::vector<uint8_t>& flagged) {
    std::vector<int> positions;
    for (int J = 0; J < int(flagged.size()); ++J)
        if (flagged[size_t(J)])
            for (int j = J * b; j < std::min(n, (J + 1) * b); ++j) positions.push_back(j);
    return positions;
}

class BigBirdVariant : public PatternVariant<BigBirdPattern> {
public:
    BigBirdVariant() {
        m_info = {
            .id = "bigbird",
            .name = "BigBird (ITC)",
            .paper = "Zaheer et al. 2020",
            .summary = "blocks of b: window of 3 blocks, global first/last blocks (rows + columns), r random key blocks per row",
            // The paper's b is 64 at n = 4096; the default scales down so a short text keeps a block structure.
            .params = with_modifier_params({with_auto_default(int_param("block", "b", "block size b (positions per block)", 16, 1, 4096),
                                         "min(16, ⌊n/16⌋, ≥ 1)"),
             int_param("window_blocks", "w", "sliding window in blocks (odd): |I − J| ≤ (w − 1)/2", 3, 1, 4095),
             int_param("global_blocks", "g", "global blocks g: the first ⌈g/2⌉ and last ⌊g/2⌋ blocks, rows and columns",
                       2, 0, 4096),
             int_param("random_blocks", "r", "random key blocks r per query block row (seeded, per head)", 3, 0, 4096),
             seed_param(), causal_param(false, "; random key blocks then come from J ≤ I"), scale_param()}, true),
            .has_mask = true,
            .short_name = "BigBird",
            .key_params = {"block", "random_blocks"},
            .budget_param = "block"};
    }
    Params resolve(const Params& params, const Shape& heads) const override {
        Params p = Variant::resolve(params, heads);
        if (!p.has("block")) p.set("block", std::clamp(heads.n() / 16, 1, 16));
        if (p.get_int("window_blocks") % 2 == 0)
            throw Error("bigbird: window_blocks = " + std::to_string(p.get_int("window_blocks")) +
                        " is even: choose an odd number (the block itself plus as many on each side)");
        return p;
    }
    std::unique_ptr<Plan> plan(const Heads& x, const Params& p,
                               const std::shared_ptr<const VariantWeights>&) const override {
        auto [pat, s] = pattern(x.n(), x.heads(), p);
        const int g = p.get_int("global_blocks");
        const RandomKeyBlocks& drawn = std::get<2>(pat.pattern.parts);
        if (g > drawn.nb)
            s.notes.push_back("global_blocks g = " + std::to_string(g) + " > nb = " + std::to_string(drawn.nb) +
                              " blocks: every block is global (equals full)");
        int short_rows = 0;
        for (size_t k = 0; k < drawn.random.size(); k += std::max(1, drawn.r))
            if (drawn.r > 0 && !drawn.global[(k / drawn.r) % drawn.nb] && drawn.random[k + drawn.r - 1] < 0) ++short_rows;
        if (short_rows > 0)
            s.notes.push_back(std::to_string(short_rows) + " block rows (over all heads) had fewer than r = " +
                              std::to_string(drawn.r) + " blocks left outside window and globals: they got all of them");
        std::optional<RandomBlocks> random;
        if (drawn.r > 0) {
            std::vector<int> flat;
            for (int I = 0; I < drawn.nb; ++I)
                for (int k = 0; k < drawn.r; ++k) flat.push_back(drawn.random_row(0, I)[k]);
            random = RandomBlocks{drawn.nb, drawn.r, std::move(flat)};
        }
        auto plan = make_sparse_plan(p, x, std::move(pat), std::move(s));
        plan->random_blocks = std::move(random);
        return plan;
    }

protected:
    /// The random blocks are drawn here, so plan() and the estimates see the same ones.
    std::pair<BigBirdPattern, SparseSetup> pattern(int n, int H, const Params& p) const override {
        const int b = p.get_int("block"), nb = block_count(n, b), g = p.get_int("global_blocks");
        const bool causal = p.get_bool("causal");
        RandomKeyBlocks drawn{n, b, nb, (p.get_int("window_blocks") - 1) / 2, causal, std::vector<uint8_t>(size_t(nb), 0), 1, 0, {}};
        for (int k = 0; k < (g + 1) / 2 && k < nb; ++k) drawn.global[k] = 1;
        for (int k = 0; k < g / 2 && k < nb; ++k) drawn.global[nb - 1 - k] = 1;
        drawn.r = p.get_int("random_blocks");
        drawn.heads = drawn.r > 0 ? H : 1;
        drawn.draw_random(static_cast<uint64_t>(p.get("seed")));
        SparseSetup s = layout_setup(p, b, causal, drawn.heads);
        const int half = drawn.half;
        // Read before `drawn` moves into the pattern (argument order is unspecified).
        Globals globals = Globals::of(n, b, positions_of_blocks(n, b, drawn.global));
        BigBirdPattern pat = restricted(any_of(std::move(globals), BlockBand{n, b, half}, std::move(drawn)),
                                        Causal{n, b, causal}, n, b);
        return {std::move(pat), std::move(s)};
    }
};

}  // namespace

std::unique_ptr<Variant> make_bigbird_variant() { return std::make_unique<BigBirdVariant>(); }

}  // namespace attnscope
