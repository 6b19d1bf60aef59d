// attnscope — a benchmark report as JSON (schema "attnscope.bench/1", read by bench/peers/run_peers.py and
// the GUI), CSV (one row per point, fixed columns) and a terminal table with ratios to the machine and to
// flash / materialised full.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/bench/engine.h"

namespace attnscope {

/// Schema id written into every JSON report; bump when a field changes meaning.
inline constexpr const char* kBenchSchema = "attnscope.bench/1";

/// The whole report as JSON: {"schema","date_utc","backend","machine":{},"config":{},"points":[...],...}.
nlohmann::json bench_report_to_json(const BenchReport& report);

/// The CSV columns, in order (the first line of bench_report_to_csv).
const std::vector<std::string>& bench_csv_columns();

/// One header line plus one row per point (skipped points included, with their status and reason).
std::string bench_report_to_csv(const BenchReport& report);

/// The human table: machine line, then one row per point with ms, GFLOP/s, % of GEMM, % of roofline,
/// peak MiB, speed-up vs flash and memory saving vs full; skipped points with their reason.
std::string format_bench_table(const BenchReport& report);

}  // namespace attnscope
