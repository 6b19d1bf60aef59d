// attnscope — the progress line in a variant's view header while its batch computes: queued, computing
// with the elapsed time (an animated bar: a variant's run has no inner progress to report), or its errors against
// exact attention still to come. The view shows the last finished result of everything else meanwhile.
#pragma once
#include "core/session/worker.h"

namespace attnscope::gui {

/// Draws the progress bar and sentence of `v` (a view still queued or computing, or one whose metrics are pending); `ahead`: views
/// of the batch still to compute before a queued one. Returns false (drawing nothing) when `v` is finished.
bool view_progress(const VariantView& v, int ahead);

/// How many views of `snap` a queued view k waits for: the running one and the queued ones shown before it.
int views_ahead(const RunSnapshot& snap, size_t k);

/// Seconds on the worker's clock (steady), to read VariantView::started_s against.
double worker_clock_seconds();

}  // namespace attnscope::gui
