#!/usr/bin/env bash
# Regenerates the README screenshot (docs/screenshot.png) with the real app under Xvfb (Mesa llvmpipe).
# The session (tests/gui/sessions/readme.json) names variants from every family; the ones this build does not
# register are skipped, so re-running after a merge shows them. The mouse is held over a matrix cell so the
# linked crosshair and the cell tooltip appear in the picture.
# The picture must show nothing of the machine it was made on: the script fails when the status bar message
# (which the app prints with the screenshot) holds this checkout's path, the home folder or a temporary folder.
# usage: scripts/screenshots.sh [ATTNSCOPE_BINARY]   (default: build/app/attnscope)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
app="${1:-$root/build/app/attnscope}"
[ -x "$app" ] || { echo "no attnscope binary at $app: build first (cmake --build build --target attnscope)" >&2; exit 2; }
command -v xvfb-run >/dev/null || { echo "xvfb-run not found: apt-get install xvfb" >&2; exit 2; }
mkdir -p "$root/docs"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
LIBGL_ALWAYS_SOFTWARE=1 xvfb-run -a -s "-screen 0 1600x1000x24" "$app" gui \
  --session "$root/tests/gui/sessions/readme.json" --panel spectrum --frames 40 \
  --mouse-x 880 --mouse-y 380 --screenshot "$root/docs/screenshot.png" | tee "$log"
status_line="$(grep '^gui: status bar message:' "$log" || true)"
[ -n "$status_line" ] || { echo "screenshots.sh: the app did not report its status bar message" >&2; exit 1; }
for private in "$root" "$HOME" /tmp /root /home; do
  if [[ "$status_line" == *"$private"* ]]; then
    echo "screenshots.sh: the status bar shows a machine-specific path ($private): $status_line" >&2
    exit 1
  fi
done
echo "wrote $root/docs/screenshot.png"
