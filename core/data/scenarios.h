// attnscope — seeded synthetic inputs, each built so that one family of variants shines or fails.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/heads.h"

namespace attnscope {

/// The synthetic scenarios.
enum class ScenarioKind {
    Gaussian,   // Q, K, V i.i.d. N(0, 1): no structure, the baseline
    Clustered,  // tokens drawn around a few centres with Q = K: LSH buckets find them
    Local,      // q·k peaks at |i − j| small: windows (Longformer, BigBird) keep the mass
    Periodic,   // q·k peaks at (i − j) mod p = 0: the strided pattern keeps the mass
    LowRank,    // Q, K from a rank-r factor: Linformer / SVD approximate well
    Hubs,       // a few hub keys every query attends to: global tokens keep the mass
};

/// Parameters of a synthetic input.
/// The shapes a synthetic input may have: the generator checks them, and every reader of an input (sessions, lesson
/// presets) refuses values outside them with the same bounds.
namespace scenario_range {
inline constexpr int kMinN = 1, kMaxN = 1 << 20;
inline constexpr int kMinHeads = 1, kMaxHeads = 64;
inline constexpr int kMinDim = 1, kMaxDim = 1024;
inline constexpr double kMaxTemperature = 100;  // and above 0
}  // namespace scenario_range

struct ScenarioSpec {
    ScenarioKind kind = ScenarioKind::Gaussian;
    int n = 256;               // sequence length
    int heads = 4;             // H
    int dim = 64;              // head dim d (Q and K)
    int value_dim = 0;         // dv; 0 means dv = d
    double temperature = 1.0;  // logits are divided by it: small = peaked rows, large = flat rows
    uint64_t seed = 0;         // same seed, same tensors, bit for bit
    int structure = 0;         // the scenario's own parameter (ScenarioInfo::param: band, period, clusters, rank or
                               // hubs); 0 = its default
};

/// The one parameter that fixes a scenario's structure independently of n, so the same picture (and the same
/// lesson) holds at any n.
struct ScenarioParam {
    std::string name;       // CLI option --NAME and session key: "band", "period", …; empty when the scenario has none
    std::string help;       // what it sets, for --help and the GUI tooltip
    std::string auto_help;  // its default, e.g. "16" or "⌈√n⌉"
    int lo = 1, hi = 1;     // inclusive range
    int fixed_default = 0;  // the default when it does not depend on n; 0 when it does (periodic: ⌈√n⌉)
};

/// Name and one-line description of a scenario, for --help and the GUI.
struct ScenarioInfo {
    ScenarioKind kind;
    std::string id;           // "gaussian", "clustered", ...
    std::string description;  // one line: what it is and the promise it keeps at every n
    ScenarioParam param;      // its structure parameter (name empty for gaussian)
};

/// Every scenario in declaration order.
const std::vector<ScenarioInfo>& scenario_list();
/// Parses a scenario id; throws Error listing the valid ids.
ScenarioKind parse_scenario(const std::string& id);
/// The id of a scenario kind.
const std::string& scenario_id(ScenarioKind kind);
/// The card of a scenario kind.
const ScenarioInfo& scenario_info(ScenarioKind kind);

/// The structure parameter the scenario uses for this spec: spec.structure, or its default resolved against n.
/// Throws Error naming the parameter and its range when spec.structure is out of range.
int scenario_structure(const ScenarioSpec& spec);

/// The hub positions of the hubs scenario (evenly spaced from 0: 0, ⌊n/h⌋, …), so a lesson or a user can make them
/// Longformer's global tokens; empty for the other scenarios.
std::vector<int> scenario_hub_positions(const ScenarioSpec& spec);

/// Builds Q, K, V for the spec (and groups: the clusters of the clustered scenario); throws Error on n, H, d out of
/// range (n in [1, 1048576], H in [1, 64], d in [1, 1024], temperature in (0, 100]) or a bad structure parameter.
Heads make_scenario(const ScenarioSpec& spec);

}  // namespace attnscope
