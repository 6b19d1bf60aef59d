#!/usr/bin/env bash
# A long random GUI session: `attnscope gui --self-test-frames FRAMES --seed SEED` under Xvfb, with the self-test's
# invariants checked every frame (no error banner without a cause, the worker answers every posted batch, memory
# bounded; app/gui/self_test.h). BUILD_DIR is a configured tree (scripts/sanitize.sh address makes an ASan + UBSan
# one); its attnscope is built first. Prints the self-test's summary and the wall time.
# usage: scripts/gui-soak.sh FRAMES [SEED] [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
frames="${1:-}"; seed="${2:-1}"; build="${3:-$root/build-sanitize-address}"
[[ "$frames" =~ ^[0-9]+$ ]] && [[ "$seed" =~ ^[0-9]+$ ]] && [ -f "$build/CMakeCache.txt" ] || {
  echo "usage: scripts/gui-soak.sh FRAMES [SEED] [BUILD_DIR]  (BUILD_DIR: a configured tree, e.g. from scripts/sanitize.sh address)" >&2
  exit 2; }
source "$root/scripts/build-env.sh"
cmake --build "$build" -j "$(nproc)" --target attnscope
# No leak report at exit: Mesa's driver is unloaded before LeakSanitizer runs, so its allocations show as leaks
# from an unknown module that no suppression can name. Growth during the run is the memory invariant's job.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# A sanitized build runs a batch several times slower; a lesson's n = 4096 batch took over 120 s (the default bound)
# under ASan on 2 busy cores, so a wedge here means no answer for 10 minutes.
export ATTNSCOPE_SELF_TEST_WEDGE_S="${ATTNSCOPE_SELF_TEST_WEDGE_S:-600}"
out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT
start=$SECONDS
status=0
ATTNSCOPE_EXPORT_DIR="$out/exports" XDG_CONFIG_HOME="$out/config" LIBGL_ALWAYS_SOFTWARE=1 \
  xvfb-run -a -s "-screen 0 1280x800x24" "$build/app/attnscope" gui --self-test-frames "$frames" --seed "$seed" \
  --width 1280 --height 800 || status=$?
echo "gui-soak: $frames frames, seed $seed, $((SECONDS - start)) s, exit $status" >&2
exit "$status"
