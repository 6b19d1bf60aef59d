// attnscope — the command-line surface: one function per subcommand that registers its options on the
// CLI11 app and, when chosen, leaves the action to run in `action`.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace attnscope::cli {

/// What a parsed subcommand does; returns the process exit status.
using CommandAction = std::function<int()>;

/// Exit status for bad input (unknown variant, value out of range, unwritable file, ...).
constexpr int kExitBadInput = 2;

/// `attnscope variants [--json]`
void add_variants_command(CLI::App& app, CommandAction& action);
/// `attnscope run --variant ID[,ID...] ...`
void add_run_command(CLI::App& app, CommandAction& action);
/// `attnscope figure --variant ID[,ID...] --out FILE.png|svg ...` or `attnscope figure --session FILE --out ...`
void add_figure_command(CLI::App& app, CommandAction& action);
/// `attnscope errmap --variant ID[,ID...] [--param NAME=RANGE] --x time --y rel_err_out ...`
void add_errmap_command(CLI::App& app, CommandAction& action);
/// `attnscope spectrum [--variant ID[,ID...]] [--top K] [--spectrum-head H] [--json FILE] ...`
void add_spectrum_command(CLI::App& app, CommandAction& action);
/// `attnscope bench --variants ID[,ID...] --n 1024:65536 ...`
void add_bench_command(CLI::App& app, CommandAction& action);
/// `attnscope sweep --variant V --param NAME=START:STOP[:xF|:+S] --metric M ...`
void add_sweep_command(CLI::App& app, CommandAction& action);
/// `attnscope streaming [--windows 64,256] [--sinks 4] [--recompute-samples 8] [--csv FILE] ...`
void add_streaming_command(CLI::App& app, CommandAction& action);
/// `attnscope lesson [NAME] [--check]`
void add_lesson_command(CLI::App& app, CommandAction& action);
/// `attnscope gui [--screenshot FILE] ...` (and the default when no subcommand is given)
void add_gui_command(CLI::App& app, CommandAction& action);

/// Parses argv, runs the chosen command and maps errors to exit statuses with one line on stderr.
int run_cli(int argc, char** argv);

}  // namespace attnscope::cli
