// attnscope — the clock a paired comparison (a lesson's speed check) reads on a given backend. On the CPU it is CPU
// time of the calling thread and its OpenMP team (work_cpu_ms): another process on a shared machine delays a run
// without adding to it, and in the GUI the renderer's threads beside the measurement are not counted. On a device
// it is the device's own time (CUDA events of the primitive calls plus the host wall between them, the clock of
// Cost::time_ms): the host's CPU time there counts launches, copies and waits, not the work being compared.
#pragma once
#include <functional>
#include <string>

#include "core/backend/interface/backend.h"
#include "core/bench/timing.h"

namespace attnscope {

/// The ms `work` takes on `backend`'s comparison clock: work_cpu_ms on a backend without a device, else the device ms
/// of its primitive calls plus the host wall time outside them.
double backend_work_ms(Backend& backend, const std::function<void()>& work);

/// That clock's name for a sentence: "CPU time" or "device time".
const char* backend_time_name(const Backend& backend);

/// paired_ratio of a and b, each timed by backend_work_ms on `backend`.
PairedRatio paired_backend_ratio(Backend& backend, const std::function<void()>& a, const std::function<void()>& b,
                                 int runs = 7);

/// A paired timing as every lesson's note writes it: "A a ms, B b ms of CPU time (median of R alternating runs;
/// per-pair ratio x…y)", with `a` and `b` naming the two sides.
std::string paired_timing_note(const PairedRatio& t, const std::string& a, const std::string& b, const Backend& backend);

}  // namespace attnscope
