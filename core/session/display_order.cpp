// attnscope — display orders (see display_order.h).
#include "core/session/display_order.h"

#include <algorithm>

#include "core/error.h"

namespace attnscope {

const char* display_order_name(DisplayOrder order) {
    switch (order) {
        case DisplayOrder::LshBuckets: return "lsh";
        case DisplayOrder::Groups: return "clusters";
        case DisplayOrder::Positions: break;
    }
    return "positions";
}

DisplayOrder parse_display_order(const std::string& text, const std::string& where) {
    if (text == "positions" || text == "natural") return DisplayOrder::Positions;
    if (text == "lsh" || text == "bucket") return DisplayOrder::LshBuckets;
    if (text == "clusters") return DisplayOrder::Groups;
    throw Error(where + ": order '" + text + "' is not natural (positions), bucket (lsh) or clusters");
}

std::vector<int> display_permutation(DisplayOrder order, int round, const Heads& heads, const std::vector<const LshBuckets*>& lsh) {
    const int H = heads.heads(), n = heads.n();
    if (order == DisplayOrder::LshBuckets) {
        const int r = std::max(0, round);
        for (const LshBuckets* b : lsh) {
            if (!b || r >= b->rounds) continue;
            const std::vector<int>& perm = b->perm_q[size_t(r)];
            if (perm.size() == size_t(H) * n) return perm;
        }
    } else if (order == DisplayOrder::Groups && heads.groups.size() == size_t(H) * n) {
        std::vector<int> perm(size_t(H) * n);
        for (int h = 0; h < H; ++h) {
            int* p = perm.data() + size_t(h) * n;
            const int* g = heads.groups.data() + size_t(h) * n;
            for (int i = 0; i < n; ++i) p[i] = i;
            std::stable_sort(p, p + n, [&](int a, int b) { return g[a] < g[b]; });
        }
        return perm;
    }
    return {};
}

}  // namespace attnscope
