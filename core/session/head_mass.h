// attnscope — heads at a glance: for every layer × head, the share of the exact attention mass each chosen masked
// variant keeps (mass_recall of that head alone). Local heads keep most under a window, sink heads under a sink
// pattern, global heads under neither.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/data/text_input.h"
#include "core/session/experiment.h"

namespace attnscope {

/// One variant instance's mass kept per (layer, head).
struct HeadMassGrid {
    std::string variant;          // variant id
    std::string instance;         // instance label, e.g. "Sink w = 16, s = 4"
    std::vector<double> recall;   // (layers · heads) [layer · heads + head]; empty when the variant has no mask
    std::string error;            // why it could not run (the first layer's message), or why it has no value
    /// mass_recall of (layer, head).
    double at(int layer, int head, int heads) const { return recall[static_cast<size_t>(layer) * heads + head]; }
};

/// Every instance's grid over the layers of one input.
struct LayerHeadMass {
    int layers = 0, heads = 0, n = 0;
    std::vector<HeadMassGrid> grids;  // in request order
    bool truncated = false;           // text: cut to the model's max positions
};

/// The instances the Heads view draws (the panel, `run --heads-csv`, `figure --view heads`): those with a mask,
/// since only a pattern that keeps a subset of the cells has a mass kept; in the instances' order.
std::vector<VariantRequest> heads_view_instances(const std::vector<VariantRequest>& instances);

/// Runs every request on every layer's heads (`layers`: one Heads per layer, same H and n) against that layer's
/// exact softmax (or the variant's own exact model, as mass_recall does) and reads each head's mass_recall.
/// `cancelled` is polled between runs; returns nothing when it fired. A variant that fails on a layer keeps its
/// message and no values.
std::optional<LayerHeadMass> layer_head_mass(const std::vector<Heads>& layers, const std::vector<VariantRequest>& requests,
                                             Backend& backend, const std::function<bool()>& cancelled = {});

/// The same on every layer of the encoder run on spec.text (spec.layer, spec.head ignored; spec.truncate applies).
/// Throws Error like load_text_input.
std::optional<LayerHeadMass> text_layer_head_mass(const TextInputSpec& spec, const std::vector<VariantRequest>& requests,
                                                  Backend& backend, const std::function<bool()>& cancelled = {});

}  // namespace attnscope
