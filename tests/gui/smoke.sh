#!/usr/bin/env bash
# GUI smoke test: start the real app under Xvfb (Mesa llvmpipe), save screenshots, check they are not blank.
# usage: smoke.sh ATTNSCOPE_BINARY OUT_DIR
set -euo pipefail
app="$1"; out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
stats="$(dirname "$app")/../tests/png_stats"
[ -x "$stats" ] || stats="$(find "$(dirname "$app")/.." -name png_stats -type f -perm -u+x | head -n 1)"
mkdir -p "$out"
shot() {  # shot NAME ARGS...
  local name="$1"; shift
  rm -f "$out/$name.png"
  LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s "-screen 0 1600x1000x24" "$app" gui --screenshot "$out/$name.png" "$@"
  "$stats" "$out/$name.png" 64
}
shot main --frames 20
echo "gui smoke: all screenshots have content"
