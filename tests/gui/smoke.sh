#!/usr/bin/env bash
# GUI smoke test: start the real app under one Xvfb server (Mesa llvmpipe) and run smoke_session.sh in it.
# usage: smoke.sh ATTNSCOPE_BINARY OUT_DIR   (ATTNSCOPE_SELF_TEST_FRAMES sets the random-interaction length)
set -euo pipefail
app="$(realpath "$1")"; out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
stats="$(dirname "$app")/../tests/png_stats"
[ -x "$stats" ] || stats="$(find "$(dirname "$app")/.." -name png_stats -type f -perm -u+x | head -n 1)"
mkdir -p "$out"
LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s "-screen 0 1600x1000x24" "$here/smoke_session.sh" "$app" "$(realpath "$out")" "$stats"
echo "gui smoke: all screenshots have content"
