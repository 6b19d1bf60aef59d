// attnscope — one background computation of an analysis view (error–cost map, heads at a glance, sinks): started
// on the worker when the view is visible and its inputs changed, after the matrix views of an edit are done;
// an outdated job is cancelled. Screenshots wait while one is pending.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "core/job.h"
#include "core/session/worker.h"

namespace attnscope::gui {

/// The newest result of a view's computation, keyed by what it was computed from.
template <class T>
struct ViewJob {
    using Job = ResultJob<std::shared_ptr<const T>>;    // a null result: cancelled
    std::string key;                                     // inputs of `result` / `error`
    std::shared_ptr<const T> result;                     // newest finished result
    std::string error;                                   // why the newest attempt failed
    std::shared_ptr<Job> job;                            // queued or running
    std::string job_key;                                 // inputs of `job`
    bool pending = false;                                // a job runs or is due (screenshots wait)

    /// Collects a finished job; when `wanted` (the view is visible) and `want_key` differs from the shown result,
    /// starts `make()`'s job once the worker has no batch to run (`worker_free`). Call once per frame.
    void update(Worker& worker, const std::string& want_key, bool wanted, bool worker_free,
                const std::function<std::shared_ptr<Job>()>& make) {
        if (job && job->finished()) {
            if (job->state() == JobState::Failed) error = job->error(), key = job_key, result.reset();
            else if (auto r = job->result(); r && *r) result = std::move(*r), key = job_key, error.clear();
            job.reset();  // cancelled: started again below when still wanted
        }
        pending = job != nullptr;
        if (job) {
            if (job_key != want_key) job->cancel();
            return;
        }
        if (!wanted || key == want_key) return;
        pending = true;
        if (!worker_free) return;  // the views of an edit go first
        job_key = want_key;
        job = make();
        worker.post_job(job);
    }
    /// The shown result is for other inputs than `want_key` (a newer one is on its way).
    bool stale(const std::string& want_key) const { return key != want_key; }
};

}  // namespace attnscope::gui
