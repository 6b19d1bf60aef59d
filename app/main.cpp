// attnscope — entry point: a subcommand runs headless; no subcommand starts the GUI.
#include <unistd.h>

#include <cstdlib>

#include "app/cli/commands.h"

namespace {

/// OpenMP's idle threads spin between parallel regions by default, and the CPU time they burn varies with whatever
/// else the machine runs, so paired CPU-time ratios swing run to run and two jobs in one process (GUI worker + a
/// sweep) slow each other down (docs/PERFORMANCE.reasons.md). Sleeping idle threads (the
/// passive policy) keep CPU time honest and cost nothing measurable in wall time. libgomp reads the policy when it loads, so
/// the process re-executes itself once with it set; an explicit OMP_WAIT_POLICY is respected.
void restart_with_passive_openmp_waits(char** argv) {
    if (std::getenv("OMP_WAIT_POLICY")) return;
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);  // returns only on failure: then run as we are
}

}  // namespace

int main(int argc, char** argv) {
    restart_with_passive_openmp_waits(argv);
    return attnscope::cli::run_cli(argc, argv);
}
