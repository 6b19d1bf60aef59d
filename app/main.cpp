// attnscope — entry point: a subcommand runs headless; no subcommand starts the GUI.
#include "cli/commands.h"

int main(int argc, char** argv) { return attnscope::cli::run_cli(argc, argv); }
