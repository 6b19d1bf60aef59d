// The worker's job queue: jobs run one at a time on the worker's own backend, never beside a run batch; a pending
// batch goes first and also runs between a job's steps; short jobs run between a long job's steps; cancelling a
// queued job means it never starts; shutting the worker down stops a running job.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>

#include "core/backend/factory/make_backend.h"
#include "core/backend/interface/backend.h"
#include "core/session/worker.h"
#include "tests/unit/worker_test_util.h"

namespace attnscope {
namespace {

RunBatchRequest batch(int n) { return test::small_batch(n, 32); }

/// Waits (at most 30 s) until `done` holds.
bool eventually(const std::function<bool()>& done) {
    for (int k = 0; k < 6000 && !done(); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return done();
}

/// A job whose steps are given by a function of the context; counts how many jobs run at once.
struct StepJob final : Job {
    std::function<void(JobContext&)> body;
    std::atomic<int>* active = nullptr;
    std::atomic<int>* most_active = nullptr;
    bool short_job = false;
    std::atomic<bool> ran{false};
    std::string backend_name;
    std::string kind() const override { return "test job"; }
    bool runs_between_steps() const override { return short_job; }

protected:
    void run(JobContext& ctx) override {
        ran = true;
        backend_name = ctx.backend().name();
        const int now = active ? ++*active : 1;
        if (most_active) *most_active = std::max(most_active->load(), now);
        if (body) body(ctx);
        if (active) --*active;
    }
};

TEST(JobQueue, JobsRunInOrderOneAtATimeAfterThePendingBatch) {
    std::printf("[case] a batch and three jobs posted at once: the batch is published before the first job starts\n");
    Worker w(make_backend, "cpu");
    std::atomic<int> active{0}, most{0};
    std::vector<int> order;
    std::mutex order_mutex;
    const uint64_t g = w.post(batch(512));
    std::vector<std::shared_ptr<StepJob>> jobs;
    std::atomic<bool> batch_was_published{true};
    for (int k = 0; k < 3; ++k) {
        auto job = std::make_shared<StepJob>();
        job->active = &active, job->most_active = &most;
        job->body = [&, k, g](JobContext&) {
            const auto snap = w.run_snapshot();
            if (!snap || snap->generation != g) batch_was_published = false;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            std::lock_guard<std::mutex> lock(order_mutex);
            order.push_back(k);
        };
        jobs.push_back(job);
        w.post_job(job);
    }
    ASSERT_TRUE(eventually([&] { return jobs.back()->finished(); }));
    for (const auto& job : jobs) {
        EXPECT_EQ(job->state(), JobState::Done) << job->error();
        EXPECT_EQ(job->backend_name, "cpu");
        EXPECT_GT(job->seconds(), 0.0);
    }
    EXPECT_TRUE(batch_was_published);
    EXPECT_EQ(most.load(), 1);
    EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
}

TEST(JobQueue, ABatchPostedDuringAJobRunsBetweenItsSteps) {
    std::printf("[case] a job steps until a batch posted after it started is published between its steps\n");
    Worker w(make_backend, "cpu");
    std::atomic<bool> started{false};
    std::atomic<uint64_t> wanted{0};
    auto job = std::make_shared<StepJob>();
    job->body = [&](JobContext& ctx) {
        started = true;
        for (int step = 0; step < 4000 && !ctx.cancelled(); ++step) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            ctx.between_steps();
            const auto snap = w.run_snapshot();
            if (wanted && snap && snap->generation == wanted) return;  // published while this job runs
        }
        throw Error("the batch was not computed between the job's steps");
    };
    w.post_job(job);
    ASSERT_TRUE(eventually([&] { return started.load(); }));
    wanted = w.post(batch(128));
    ASSERT_TRUE(eventually([&] { return job->finished(); }));
    EXPECT_EQ(job->state(), JobState::Done) << job->error();
}

TEST(JobQueue, ShortJobsRunBetweenALongJobsStepsAndCancelledJobsNeverStart) {
    std::printf("[case] a long job steps until a short job queued behind it has run; a cancelled job never starts\n");
    Worker w(make_backend, "cpu");
    auto short_job = std::make_shared<StepJob>();
    short_job->short_job = true;
    auto cancelled = std::make_shared<StepJob>();
    std::atomic<bool> started{false};
    auto long_job = std::make_shared<StepJob>();
    long_job->body = [&](JobContext& ctx) {
        started = true;
        for (int step = 0; step < 4000 && !short_job->finished(); ++step) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            ctx.between_steps();
        }
        if (!short_job->finished()) throw Error("the short job waited for the long one");
    };
    w.post_job(long_job);
    ASSERT_TRUE(eventually([&] { return started.load(); }));
    cancelled->cancel();
    w.post_job(cancelled);
    w.post_job(short_job);
    ASSERT_TRUE(eventually([&] { return cancelled->finished(); }));
    EXPECT_EQ(long_job->state(), JobState::Done) << long_job->error();
    EXPECT_EQ(short_job->state(), JobState::Done);
    EXPECT_EQ(cancelled->state(), JobState::Cancelled);
    EXPECT_FALSE(cancelled->ran.load());
}

TEST(JobQueue, AFailingJobSaysWhyAndShutdownStopsARunningOne) {
    std::printf("[case] a job that throws fails with its message; the worker's destructor cancels a running job\n");
    auto failing = std::make_shared<StepJob>();
    failing->body = [](JobContext&) { throw Error("no such variant 'x'"); };
    auto endless = std::make_shared<StepJob>();
    std::atomic<bool> started{false};
    endless->body = [&](JobContext& ctx) {
        started = true;
        while (!ctx.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    };
    {
        Worker w(make_backend, "cpu");
        w.post_job(failing);
        w.post_job(endless);
        ASSERT_TRUE(eventually([&] { return started.load(); }));
        EXPECT_EQ(w.running_job(), endless);
    }  // joins: returns only because the running job saw cancelled()
    EXPECT_EQ(failing->state(), JobState::Failed);
    EXPECT_EQ(failing->error(), "no such variant 'x'");
    EXPECT_EQ(endless->state(), JobState::Cancelled);
}

}  // namespace
}  // namespace attnscope
