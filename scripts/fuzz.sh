#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang + ASan + UBSan in their own tree and runs each for a
# while, starting from the committed seeds (tests/fuzz/corpus/<target>) plus what earlier runs of this tree found.
# Any crash, sanitizer report, timeout or broken property stops that target, keeps the input under
# BUILD_DIR/findings/<target>/ and fails the script. Prints executions per target (docs/RELIABILITY.md).
#   scripts/fuzz.sh 30             the CI smoke: 30 s per target
#   scripts/fuzz.sh 3600 "" npy    a long campaign of one target (BUILD_DIR "" = default)
#   scripts/fuzz.sh 600 "" npy session=3000   TARGET=SECONDS gives that target its own time
# FUZZ_MAX_LEN (default 65536) caps an input's size; libFuzzer grows inputs towards it, and the text targets
# slow down with their inputs (tokenizer: 9 000 exec/s near 1 KB, 1 400 near 8 KB), so a campaign may run a
# second phase at 4096, libFuzzer's own default.
# usage: scripts/fuzz.sh SECONDS_PER_TARGET [BUILD_DIR] [TARGET[=SECONDS] ...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-}"
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || {
  echo "usage: scripts/fuzz.sh SECONDS_PER_TARGET [BUILD_DIR] [TARGET[=SECONDS] ...]" >&2; exit 2; }
build="${2:-}"; build="${build:-$root/build-fuzz}"
shift $(($# < 2 ? $# : 2))
targets=()
declare -A seconds_of=()
for spec in "$@"; do
  t="${spec%%=*}"; targets+=("$t")
  [[ "$spec" != *=* ]] && continue
  seconds_of[$t]="${spec#*=}"
  [[ "${seconds_of[$t]}" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: '$spec': the seconds after = must be a whole number" >&2; exit 2; }
done
start=$SECONDS
"$root/scripts/setup.sh"
source "$root/scripts/build-env.sh"
# -march=x86-64-v2: no vector ISA, so this tree is also the compile check of the whole core and app (GUI included)
# without the hand-written kernels, warnings as errors (core/cpu_isa.h), and the fuzzers exercise the portable paths.
# (tests/ and bench/ are compiled at the build's own level; style.isa_levels checks their ISA-dependent units at v2,
# v3 and v4.)
generator_flags_for "$build"
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" "${generator_flags[@]}" -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_WERROR=ON \
  -DATTNSCOPE_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v2 -DCMAKE_C_FLAGS=-march=x86-64-v2 \
  -DATTNSCOPE_CUDA=OFF -DATTNSCOPE_TESTS=OFF -DATTNSCOPE_BENCH=OFF -DATTNSCOPE_FUZZ=ON \
  -DATTNSCOPE_SANITIZE=address,undefined "${launcher_flags[@]}" >/dev/null
if ((${#targets[@]} == 0)); then
  for f in "$root"/tests/fuzz/fuzz_*.cpp; do
    t="$(basename "$f" .cpp)"; t="${t#fuzz_}"
    [ "$t" = session ] && ! grep -q '^ATTNSCOPE_GUI:BOOL=ON' "$build/CMakeCache.txt" && continue
    targets+=("$t")
  done
fi
# The app itself too (its two files the fuzz targets do not link): with the libraries above that is every file of
# core/ and app/ compiled at x86-64-v2.
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/fuzz_}" attnscope
build_s=$((SECONDS - start))

export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
printf '%-14s %14s %10s %8s  %s\n' target executions exec/s corpus result >&2
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t" findings="$build/findings/$t" log="$build/logs/$t.log"
  mkdir -p "$corpus" "$findings" "$(dirname "$log")"
  # Scratch files of the targets (the readers take paths) go to a folder of their own in memory when /dev/shm is
  # there, removed afterwards.
  scratch="$(mktemp -d -p "$([ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")")"
  result=ok
  TMPDIR="$scratch" "$build/fuzz/fuzz_$t" -max_total_time="${seconds_of[$t]:-$seconds}" -timeout=20 -rss_limit_mb=3072 \
    -max_len="${FUZZ_MAX_LEN:-65536}" -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "$root/tests/fuzz/corpus/$t" \
    >"$log" 2>&1 || { result="FAILED (input and log: $findings, $log)"; status=1; }
  rm -rf "$scratch"
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
  printf '%-14s %14s %10s %8s  %s\n' "$t" "${runs:-?}" "${rate:-?}" "$(ls "$corpus" | wc -l)" "$result" >&2
  [ "$result" = ok ] || grep -E 'ERROR|SUMMARY|property failed|terminate' "$log" | head -n 5 >&2 || true
done
echo "fuzz: build ${build_s} s, fuzzing $((SECONDS - start - build_s)) s, exit $status" >&2
exit "$status"
