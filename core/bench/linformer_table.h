// attnscope — the Linformer paper's Table 3 for our implementation: time and memory saved by `linformer`
// (projected length k) relative to the Transformer's materialised attention (`full`, or `flash` when asked)
// for n ∈ {512 … 65536} × k ∈ {128 … 2048}, beside the paper's numbers.
// Written against the variant id "linformer" with parameter "k" (docs/VARIANTS.md); it runs once that variant is
// registered and says so otherwise. Our ratios are for one attention call (peak tracked bytes, outputs
// included); the paper's are for a whole model's inference on a GPU, so only the trend is comparable.
#pragma once
#include <string>
#include <vector>

#include "core/bench/engine.h"

namespace attnscope {

/// What to sweep for the table.
struct LinformerTableConfig {
    std::vector<int> ns{512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};  // rows
    std::vector<int> ks{128, 256, 512, 1024, 2048};                          // columns (cells need k < n)
    std::string baseline = "full";   // "full" (the paper's Transformer) or "flash"
    BenchConfig bench;               // heads, dim, runs, budget, memory guard (variants and ns are replaced)
};

/// The paper's Table 3 (Wang et al. 2020, arXiv:2006.04768): {time saved, memory saved} for n × k, 0 where
/// the paper has no entry (k ≥ n). Transcribed by hand: check against the paper before quoting.
struct PaperCell {
    int n, k;
    double time_saved, memory_saved;
};
/// Every cell of the paper's table.
const std::vector<PaperCell>& linformer_paper_table3();

/// The measured table: the sweep it came from plus the ratio for each (n, k).
struct LinformerTable {
    LinformerTableConfig config;
    BenchReport report;  // baseline points (label = baseline id) and linformer points (label "linformer[k=K]")
    /// Our time saved (baseline median / linformer median) at (n, k); 0 when either point was not measured.
    double time_saved(int n, int k) const;
    /// Our memory saved (baseline peak / linformer peak); 0 when not measured. Uses full's exact estimate
    /// when full itself was not run (flagged in the markdown with *).
    double memory_saved(int n, int k, bool* estimated = nullptr) const;
};

/// Throws Error naming what is missing unless "linformer" with a "k" parameter is registered.
void require_linformer_variant();

/// Runs the baseline and linformer sweeps (machine measured once) and returns the table.
LinformerTable run_linformer_table(const LinformerTableConfig& config, Backend& backend,
                                   const BenchCallbacks& callbacks = {});

/// Markdown: a time-saved and a memory-saved table, each cell "ours (paper)", plus the skipped points' reasons.
std::string linformer_table_markdown(const LinformerTable& table);

}  // namespace attnscope
