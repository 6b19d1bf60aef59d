// attnscope — the Sinks view's data for input other than text (text runs the encoder: text_key_attention), built in
// one place for the Sinks panel, `run --sinks-csv` and `figure --view sinks`: the mean attention each key receives in
// the exact P that shown_reference_causal picks.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/key_attention.h"
#include "core/session/batch.h"
#include "core/session/experiment.h"

namespace attnscope {

/// The exact P a batch's snapshot shows in the Sinks view, and its causality in `causal`: the P of
/// shown_reference_causal over the causalities its instances run (a snapshot holds one P for each). Null with
/// `why_not` set when that P is not there (not materialised at this n, or the views are not in positions' order).
std::shared_ptr<const Tensor3> sinks_matrix(const RunSnapshot& snap, bool& causal, std::string& why_not);

/// The profile of sinks_matrix (the Sinks panel computes it in a job); empty with `why_not` set when there is none.
std::optional<KeyAttentionProfile> sinks_profile(const RunSnapshot& snap, std::string& why_not);

/// The profile of `heads` for these instances, the exact P computed through `refs` (made with want_P). Throws Error
/// naming --matrix-limit when n is above `matrix_limit`, where P is not materialised.
KeyAttentionProfile sinks_profile(const Heads& heads, const std::vector<VariantRequest>& instances, ReferenceCache& refs,
                                  Backend& backend, int matrix_limit, const std::string& option);

}  // namespace attnscope
