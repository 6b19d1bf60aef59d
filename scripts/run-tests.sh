#!/usr/bin/env bash
# Installs what is missing, builds everything (warnings are errors; CUDA code too when nvcc exists) and runs
# the whole test suite with ctest. Usage: scripts/run-tests.sh [BUILD_DIR [CMAKE_ARG ...]]
# Extra arguments go to cmake, e.g. an AVX2 build that runs on any x86-64-v3 CPU, with or without AVX-512:
#   scripts/run-tests.sh build-v3 -DATTNSCOPE_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v3
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
shift $(($# > 0 ? 1 : 0))
start=$SECONDS
"$root/scripts/setup.sh"
setup_s=$((SECONDS - start))
source "$root/scripts/build-env.sh"
generator_flags_for "$build"
cmake -S "$root" -B "$build" "${generator_flags[@]}" -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_WERROR=ON "${launcher_flags[@]}" "$@"
cmake --build "$build" -j "$(nproc)"
build_s=$((SECONDS - start - setup_s))
cd "$build"
status=0
ctest --output-on-failure -j "$(nproc)" || status=$?
if [ "$status" -ne 0 ] && [ -f Testing/Temporary/LastTestsFailed.log ]; then
  # A failing test's output sits in the middle of a long log that is often read by its ends: repeat the last
  # lines of each failing test's output at the end.
  while IFS=: read -r _ name; do
    echo "run-tests: $name failed; the last lines it printed:" >&2
    awk -v name="$name" '
      { suffix = " Testing: " name }
      !on && length($0) >= length(suffix) && substr($0, length($0) - length(suffix) + 1) == suffix { on = 1; next }
      on && /^<end of output>/ { exit }
      on' Testing/Temporary/LastTest.log | tail -n 25 >&2
  done < Testing/Temporary/LastTestsFailed.log
fi
echo "run-tests: set-up ${setup_s} s, build ${build_s} s, tests $((SECONDS - start - setup_s - build_s)) s" >&2
exit "$status"
