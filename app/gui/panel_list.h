// attnscope — the panel table as the CLI prints it (`attnscope gui --list-panels [--json]`): what the GUI smoke test
// and the docs read instead of keeping their own lists. Needs no window, display or GL context.
#pragma once
#include <ostream>

namespace attnscope::gui {

/// Writes one tab-separated line per panel in table order — alias, window title, "computes" when screenshots wait
/// for its work (else "-"), its session keys separated by spaces (else "-") — or, with `json`, an array of
/// {alias, window, slot, front, computes, session_keys}.
void print_panel_list(std::ostream& out, bool json);

}  // namespace attnscope::gui
