// attnscope — the error–cost map: every chosen instance (and, for a swept parameter, every value of it) as a point
// of a cost (measured time, analytic FLOPs or peak memory) against an error (rel_err_out, 1 − mass_recall, or on
// text 1 − the sentence embedding's cosine), with the Pareto front marked: "which variant is best for my budget on
// this input". Used by `attnscope errmap` and the GUI's Error–cost panel.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/session/experiment.h"

namespace attnscope {

/// One instance run on the input.
struct ErrorCostPoint {
    std::string variant;              // variant id
    std::string instance;             // instance label, e.g. "Sink w = 16, s = 4"
    Params params;                    // resolved values
    double time_ms = 0, flops = 0;    // median wall time of three timed executions; analytic FLOPs
    double peak_bytes = 0;            // peak tracked bytes during the run
    std::optional<double> rel_err_out;   // against exact softmax attention
    std::optional<double> mass_loss;     // 1 − mass_recall (masked and hashed variants)
    std::optional<double> embedding_loss;  // 1 − cosine of the sentence embedding with this variant (text, when asked)
    bool pareto = false;              // no other point is at most as costly and at most as wrong, one strictly
};

/// What the map's axes measure.
enum class CostAxis { Time, Flops, Memory };
enum class ErrorAxis { RelErrOut, MassLoss, EmbeddingLoss };

/// Parses "time", "flops" or "memory" / "rel_err_out", "mass_loss" or "embedding_loss"; throws Error listing them.
CostAxis parse_cost_axis(const std::string& text);
ErrorAxis parse_error_axis(const std::string& text);

/// The axis values of a point (nullopt when the error does not apply, e.g. mass_loss of a kernel variant).
double cost_of(const ErrorCostPoint& p, CostAxis axis);
std::optional<double> error_of(const ErrorCostPoint& p, ErrorAxis axis);

/// Measures a request's embedding cosine (embedding_cosine_measure of text_whatif.h); nullopt when it does not apply.
using EmbeddingCosine = std::function<std::optional<double>(const VariantRequest&, Backend&)>;

/// Runs every request on `heads` against the shared exact reference and returns its point; `embedding` (optional)
/// also fills embedding_loss.
std::vector<ErrorCostPoint> error_cost_points(const Heads& heads, const std::vector<VariantRequest>& requests,
                                              Backend& backend, const EmbeddingCosine& embedding = {});

/// One request of a map and where it came from.
struct ErrorCostRequest {
    VariantRequest request;  // what runs
    int instance = 0;        // index of the instance it was made from
    std::string swept;       // the parameter set to a swept value ("" when the instance is one point)
};

/// Every instance as it is, or (`name` non-empty: a parameter or "budget") every instance at every value of that
/// parameter; an instance without it stays one point and `notes` (optional) gets why. Throws Error for a sweep of
/// n (the map compares variants on one input) or a value the parameter rejects.
std::vector<ErrorCostRequest> expand_error_cost_requests(const std::vector<VariantRequest>& instances,
                                                         const std::string& name, const std::vector<double>& values,
                                                         std::vector<std::string>* notes = nullptr);

/// Marks the Pareto front over the points whose error applies (lower cost and lower error are better).
void mark_pareto_front(std::vector<ErrorCostPoint>& points, CostAxis cost, ErrorAxis error);

}  // namespace attnscope
