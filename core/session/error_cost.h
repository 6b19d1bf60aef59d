// attnscope — the error–cost map: every chosen instance (and, for a swept parameter, every value of it) as a point
// of a cost (measured time, analytic FLOPs or peak memory) against an error (rel_err_out, 1 − mass_recall, or on
// text 1 − the sentence embedding's cosine), with the Pareto front marked: "which variant is best for my budget on
// this input". Used by `attnscope errmap` and the GUI's Error–cost panel.
//
// Time is measured in rounds: round 1 times every point once, round 2 again, … (as paired_ratio alternates two
// workloads), so a slow phase of a shared machine hits all points alike; each round starts one point later, so the
// slow place after a heavy point (cold caches) is not always the same point's. Each point keeps the median and the
// min..max of its rounds. On the CPU the clock is CPU time (work_cpu_ms: the calling thread and its OpenMP team),
// which another process on the machine cannot inflate; on a device it is the backend's clock (CUDA events + host
// wall). The front respects the spread: on the time axis a point is dominated only by one at most as wrong whose
// whole min..max lies below its min, so overlapping measurements never decide the front and identical runs give
// the same one. FLOPs and tracked memory are exact: plain comparison.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/bench/timing.h"
#include "core/session/experiment.h"

namespace attnscope {

/// One instance run on the input.
struct ErrorCostPoint {
    std::string variant;              // variant id
    std::string instance;             // instance label, e.g. "Sink w = 16, s = 4"
    Params params;                    // resolved values
    double time_ms = 0;               // median of the timed runs, on time_clock
    double time_min_ms = 0;           // fastest timed run: the spread the front respects
    double time_max_ms = 0;           // slowest timed run
    double wall_ms = 0;               // median wall time of the same runs (for reference: noisy on a shared machine)
    int repeats = 0;                  // timed runs behind time_ms
    std::string time_clock;           // "cpu" (work_cpu_ms) or the backend's device clock, e.g. "cuda-events+host-wall"
    double flops = 0;                 // analytic FLOPs
    double peak_bytes = 0;            // peak tracked bytes during the run
    std::optional<double> rel_err_out;   // against exact softmax attention
    std::optional<double> mass_loss;     // 1 − mass_recall (masked and hashed variants)
    std::optional<double> embedding_loss;  // 1 − cosine of the sentence embedding with this variant (text, when asked)
    std::optional<double> perplexity;      // the decoder's perplexity with this variant in its attention (text, when
                                           // asked)
    bool pareto = false;              // no other point dominates it (mark_pareto_front: spreads must separate)
};

/// What the map's axes measure.
enum class CostAxis { Time, Flops, Memory };
enum class ErrorAxis { RelErrOut, MassLoss, EmbeddingLoss, Perplexity };

/// Parses "time", "flops" or "memory" / "rel_err_out", "mass_loss", "embedding_loss" or "perplexity"; throws Error
/// listing them.
CostAxis parse_cost_axis(const std::string& text);
ErrorAxis parse_error_axis(const std::string& text);

/// The axis values of a point (nullopt when the error does not apply, e.g. mass_loss of a kernel variant).
double cost_of(const ErrorCostPoint& p, CostAxis axis);
std::optional<double> error_of(const ErrorCostPoint& p, ErrorAxis axis);

/// Measures a request through a text model (embedding_cosine_measure of text_whatif.h, perplexity_measure of
/// decoder_whatif.h); nullopt when it does not apply.
using ModelMeasure = std::function<std::optional<double>(const VariantRequest&, Backend&)>;

/// Timed runs per point when not told: odd, so the median is one of the runs, and enough for min..max to show
/// the machine's noise without making a sweep slow.
constexpr int kDefaultErrorCostRepeats = 5;

/// How a map is measured.
struct ErrorCostOptions {
    ModelMeasure embedding;                    // also fills embedding_loss from the cosine (optional)
    ModelMeasure perplexity;                   // also fills perplexity (optional)
    int repeats = kDefaultErrorCostRepeats;    // timed runs per point, ≥ 1, in interleaved rounds
    std::function<bool()> proceed;             // asked before every run (optional): false stops the map (a GUI cancel)
};

/// Runs every request on `heads` against the shared exact reference (its metrics; also the warm-up), then times all
/// of them in options.repeats interleaved rounds. Returns {} when options.proceed stopped it; throws Error for a
/// bad repeats count or request.
std::vector<ErrorCostPoint> error_cost_points(const Heads& heads, const std::vector<VariantRequest>& requests,
                                              Backend& backend, const ErrorCostOptions& options = {});

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

/// Whether `q` dominates `p` on these axes, both errors present: q is at most as wrong, and on the time axis q's
/// whole min..max lies below p's min (overlapping spreads decide nothing); on FLOPs or memory (exact) q costs at
/// most as much, q strictly better on one axis.
bool dominates(const ErrorCostPoint& q, const ErrorCostPoint& p, CostAxis cost, ErrorAxis error);

/// Marks the Pareto front over the points whose error applies: those no other point dominates (see dominates).
void mark_pareto_front(std::vector<ErrorCostPoint>& points, CostAxis cost, ErrorAxis error);

}  // namespace attnscope
