// attnscope — k-step reachability of an attention mask: which keys j can influence query i through a
// stack of k attention layers with the same pattern (the boolean matrix power A^k, A_ij = "i attends j").
// It shows what a sparse pattern buys with depth: the strided pattern (Child 2019) reaches every j ≤ i in
// two steps; BigBird's random blocks shorten paths that a window alone would take n/b steps to cover.
// Computed sparsely: rows are bitsets and a step ORs the key sets of the current frontier only.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/backend/interface/block_layout.h"
#include "core/reason.h"

namespace attnscope {

/// A directed graph "query i attends key j" in CSR form.
struct Adjacency {
    int n = 0;                 // positions
    std::vector<int> row_ptr;  // (n + 1)
    std::vector<int> cols;     // keys of each row, ascending
};

/// Adjacency of a block-sparse layout: layout head `head`, or the union of every layout head when head = −1.
Adjacency layout_adjacency(const BlockLayout& layout, int head);
/// Adjacency of a reason mask: head `head`, or the union of every head when head = −1.
Adjacency mask_adjacency(const ReasonMask& mask, int head);

/// Result of compute_reachability().
struct Reachability {
    int n = 0;                             // positions
    int steps = 0;                         // k
    bool causal = false;                   // targets are pairs j ≤ i (else all pairs)
    std::vector<uint8_t> hops;             // (n, n) fewest hops ≤ k from i to j, 0 = not reachable in k steps
    std::vector<double> reached_fraction;  // [s − 1] share of target pairs reachable in ≤ s hops, s = 1..k
    int64_t target_pairs = 0;              // n² (or n(n+1)/2 when causal)
    double mean_hops = 0;                  // mean fewest hops over reachable target pairs
    int max_hops = 0;                      // largest fewest-hop count over reachable target pairs
};

/// Fewest hops (up to `steps`, 1 ≤ steps ≤ 255) between every pair; O(n²·n/64) word operations at most.
Reachability compute_reachability(const Adjacency& adjacency, int steps, bool causal);

/// One sentence for structure.notes, e.g. "reachability (union of heads): 1 step 12.5%, 2 steps 100% ...".
std::string reachability_summary(const Reachability& reach);

/// run_sparse() adds the reachability note only up to this n (the computation is cubic/64 at worst).
constexpr int kReachabilityNoteMaxN = 1024;

}  // namespace attnscope
