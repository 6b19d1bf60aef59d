// attnscope tests — a small run batch for the worker and job-queue tests.
#pragma once
#include "core/session/worker.h"

namespace attnscope::test {

/// full and flash on a local scenario of n tokens (2 heads, d = 16), views pooled to `view`.
inline RunBatchRequest small_batch(int n, int view) {
    RunBatchRequest r;
    r.input.scenario.kind = ScenarioKind::Local;
    r.input.scenario.n = n;
    r.input.scenario.heads = 2;
    r.input.scenario.dim = 16;
    r.variants = {parse_variant_request("full", {}), parse_variant_request("flash", {})};
    r.view_size = view;
    return r;
}

}  // namespace attnscope::test
