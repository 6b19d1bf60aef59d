// attnscope — a benchmark sweep as a job (core/job.h) for the GUI's Performance panel: post it to the worker, read
// progress() and the newest report() snapshot every frame (points appear as they finish), cancel() stops it
// between runs. Pending run batches are computed between two runs, never beside one.
#pragma once
#include <memory>
#include <mutex>
#include <string>

#include "core/job.h"
#include "core/bench/engine.h"

namespace attnscope {

/// One benchmark sweep.
class BenchJob final : public Job {
public:
    /// A sweep of `config` (validated when it runs: a bad one fails the job with the reason).
    explicit BenchJob(BenchConfig config) : m_config(std::move(config)) {}
    std::string kind() const override { return "benchmark sweep"; }
    bool uses_all_cores() const override { return true; }

    /// The latest progress (copy).
    BenchProgress sweep_progress() const;
    /// The newest snapshot: the points finished so far while running, the whole report afterwards.
    std::shared_ptr<const BenchReport> report() const;

protected:
    void run(JobContext& ctx) override;

private:
    const BenchConfig m_config;
    mutable std::mutex m_mutex;  // guards the two fields below
    BenchProgress m_progress;
    std::shared_ptr<const BenchReport> m_report = std::make_shared<const BenchReport>();
};

}  // namespace attnscope
