#include <iostream>

#include "app/cli/commands.h"
#include "core/error.h"
#include "core/variants/registry.h"

namespace attnscope::cli {

namespace {

/// Every option of unsigned type (CLI11's UINT) in `app` and its subcommands refuses a negative number: CLI11
/// would convert "-3" by wrapping it to 2^64 − 3, a seed nobody asked for.
void refuse_negative_unsigned(CLI::App& app) {
    for (CLI::Option* option : app.get_options())
        if (option->get_type_name() == "UINT")
            option->check(CLI::Validator(
                [](std::string& value) -> std::string {
                    const size_t first = value.find_first_not_of(" \t");
                    if (first != std::string::npos && value[first] == '-')
                        return value + " is negative: give a whole number ≥ 0";
                    return "";
                },
                "", "non-negative"));
    for (CLI::App* sub : app.get_subcommands({})) refuse_negative_unsigned(*sub);
}

}  // namespace

int run_cli(int argc, char** argv) {
    CLI::App app{"attnscope — a visualizer and playground for efficient attention.\n"
                 "Without a subcommand the desktop GUI starts."};
    app.require_subcommand(0, 1);
    app.set_version_flag("--version", "attnscope 0.1.0");
    CommandAction action;
    add_variants_command(app, action);
    add_run_command(app, action);
    add_figure_command(app, action);
    add_errmap_command(app, action);
    add_spectrum_command(app, action);
    add_bench_command(app, action);
    add_sweep_command(app, action);
    add_streaming_command(app, action);
    add_lesson_command(app, action);
    add_gui_command(app, action);
    refuse_negative_unsigned(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "error: " << e.what() << " (see attnscope --help)\n";
        return kExitBadInput;
    }
    try {
        if (!action) {
            // No subcommand: the GUI with its defaults.
            CLI::App gui_only;
            add_gui_command(gui_only, action);
            gui_only.parse(std::vector<std::string>{"gui"});
        }
        return action();
    } catch (const Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return kExitBadInput;
    } catch (const std::bad_alloc&) {
        std::cerr << "error: out of memory: choose a smaller n, fewer heads or a sub-quadratic variant\n";
        return kExitBadInput;
    }
}

}  // namespace attnscope::cli
