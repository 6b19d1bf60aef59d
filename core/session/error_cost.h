// attnscope — the error–cost map: every chosen instance (and, for a swept parameter, every value of it) as a point
// of a cost (measured time, analytic FLOPs or peak memory) against an error (rel_err_out or 1 − mass_recall), with
// the Pareto front marked: "which variant is best for my budget on this input". Used by `attnscope errmap`.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "experiment.h"

namespace attnscope {

/// One instance run on the input.
struct ErrorCostPoint {
    std::string variant;              // variant id
    std::string instance;             // instance label, e.g. "Sink w = 16, s = 4"
    Params params;                    // resolved values
    double time_ms = 0, flops = 0;    // measured wall time of the compute part; analytic FLOPs
    double peak_bytes = 0;            // peak tracked bytes during the run
    std::optional<double> rel_err_out;   // against exact softmax attention
    std::optional<double> mass_loss;     // 1 − mass_recall (masked and hashed variants)
    bool pareto = false;              // no other point is at most as costly and at most as wrong, one strictly
};

/// What the map's axes measure.
enum class CostAxis { Time, Flops, Memory };
enum class ErrorAxis { RelErrOut, MassLoss };

/// Parses "time", "flops" or "memory" / "rel_err_out" or "mass_loss"; throws Error listing them.
CostAxis parse_cost_axis(const std::string& text);
ErrorAxis parse_error_axis(const std::string& text);

/// The axis values of a point (nullopt when the error does not apply, e.g. mass_loss of a kernel variant).
double cost_of(const ErrorCostPoint& p, CostAxis axis);
std::optional<double> error_of(const ErrorCostPoint& p, ErrorAxis axis);

/// Runs every request on `heads` against the shared exact reference and returns its point.
std::vector<ErrorCostPoint> error_cost_points(const Heads& heads, const std::vector<VariantRequest>& requests,
                                              Backend& backend);

/// Marks the Pareto front over the points whose error applies (lower cost and lower error are better).
void mark_pareto_front(std::vector<ErrorCostPoint>& points, CostAxis cost, ErrorAxis error);

}  // namespace attnscope
