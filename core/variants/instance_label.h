// attnscope — how one instance of a variant is named wherever it appears: panel titles, legends, tooltips,
// tables and file names. Two panels of the same variant differ in their parameters, so the name carries them.
#pragma once
#include <string>

#include "core/variants/variant.h"

namespace attnscope {

/// Display label of an instance: the short name, the key parameters in the paper's notation, then every other
/// parameter that differs from its default, e.g. "SVD r = 8", "Performer m = 256, orthogonal",
/// "Longformer w = 16, causal". `params` are the resolved values (auto defaults filled).
std::string instance_label(const VariantInfo& info, const Params& params);

/// The label of an instance on a sweep's curve: instance_label without the swept parameter (its value is the x axis)
/// and without the seed (a sweep averages over seeds).
std::string curve_label(const VariantInfo& info, const Params& params, const std::string& swept);

/// File-name stem of an instance, ASCII letters, digits and '-' only, e.g. "svd-r8", "performer-m256-orthogonal",
/// "longformer-w16-causal": the same parameters as instance_label, so two instances never share a file.
std::string instance_slug(const VariantInfo& info, const Params& params);

}  // namespace attnscope
