// attnscope — every panel's numbers as CSV text: the metrics table (the Matrices panel's "Copy metrics CSV" and
// `run --metrics-csv`), sweep curves, spectra, the heads grid and the sinks bars. The GUI and the CLI call the same
// function for each, so a file written headless holds exactly what the panel shows. Quoting: core/csv.h.
#pragma once
#include <string>
#include <vector>

#include "core/analysis/layer_spectra.h"
#include "core/analysis/spectrum.h"
#include "core/session/experiment.h"
#include "core/session/head_mass.h"
#include "core/session/metric_sweep.h"

namespace attnscope {

/// Columns measured per instance outside its run (a decoder's perplexity what-if): names, and per result its cells.
struct InstanceColumns {
    std::vector<std::string> names;
    std::vector<std::vector<std::string>> cells;  // one row of names.size() cells per result
};

/// Header, then per result a row of means over heads and one row per head (density and costs: over all heads);
/// `extra` (optional) appends its columns, filled on each result's first row (they are not per head).
std::string metrics_csv(const std::vector<const RunResult*>& results, const InstanceColumns* extra = nullptr);

/// One sweep curve: an instance's points over the swept parameter.
struct SweepCurveTable {
    std::string variant;                   // variant id
    std::string instance;                  // instance label without the swept parameter
    std::string param;                     // the parameter swept (budget resolved to the variant's own)
    std::vector<MetricSweepPoint> points;  // ascending values
};

/// Header, then one row per point of every curve; a point no seed measured has empty mean, min and max.
std::string sweep_csv(const std::vector<SweepCurveTable>& curves, const std::string& metric);

/// One spectrum of one head of one matrix (the exact P or an instance's P̃).
struct SpectrumTable {
    std::string variant;   // variant id, "exact" for the exact P
    std::string instance;  // instance label ("P" or "P (causal)" for the exact P)
    int head = 0;
    Spectrum spectrum;
};

/// Header, then one row per singular value (rank k from 1, σ_k, cumulative share) of every spectrum, at most
/// `top` per spectrum.
std::string spectrum_csv(const std::vector<SpectrumTable>& spectra, int top);

/// Header, then one row per layer × head × rank k: the cumulative share of Σσ of that head's exact P (the Spectrum
/// panel's layers × heads map reads it at one k).
std::string layer_spectra_csv(const LayerHeadSpectra& spectra);

/// Header, then one row per instance × layer × head: the share of the exact mass kept; an instance without values
/// has them empty and says why in the last column.
std::string head_mass_csv(const LayerHeadMass& grid);

/// Header, then one row per key position: its token (or position), kind, mean received attention and the uniform
/// share 1/n (the Sinks panel's bars).
std::string key_attention_csv(const std::vector<std::string>& tokens, const std::vector<double>& received);

}  // namespace attnscope
