#!/usr/bin/env bash
# Installs what is missing, builds attnscope in Release and starts the GUI on the bundled sample text.
# Extra arguments go to `attnscope gui`. Usage: scripts/run-app.sh [GUI OPTIONS...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
"$root/scripts/setup.sh"
source "$root/scripts/build-env.sh"
generator_flags_for "$build"
cmake -S "$root" -B "$build" "${generator_flags[@]}" -DCMAKE_BUILD_TYPE=Release "${launcher_flags[@]}"
cmake --build "$build" -j "$(nproc)" --target attnscope
exec "$build/app/attnscope" gui "$@"
