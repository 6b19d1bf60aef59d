#!/usr/bin/env bash
# Installs what is missing, builds everything (warnings are errors; CUDA code too when nvcc exists) and runs
# the whole test suite with ctest. Usage: scripts/run-tests.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
start=$SECONDS
"$root/scripts/setup.sh"
setup_s=$((SECONDS - start))
source "$root/scripts/build-env.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_WERROR=ON "${launcher_flags[@]}"
cmake --build "$build" -j "$(nproc)"
build_s=$((SECONDS - start - setup_s))
cd "$build"
status=0
ctest --output-on-failure -j "$(nproc)" || status=$?
echo "run-tests: set-up ${setup_s} s, build ${build_s} s, tests $((SECONDS - start - setup_s - build_s)) s" >&2
exit "$status"
