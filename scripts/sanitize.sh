#!/usr/bin/env bash
# Builds the code without CUDA and micro-benchmarks (the GUI only for `address`) with sanitizers in its own tree and
# runs what CI checks under them; any report is fatal (-fno-sanitize-recover), so it fails the test that met it.
# The `address` build compiles for -march=x86-64-v3 (AVX2 + FMA), not this machine's CPU: the release build of the
# test command takes the AVX-512 kernels on an AVX-512 machine, so this is where their AVX2 side compiles with warnings
# as errors and runs every test, under the sanitizers, on every CI run (core/cpu_isa.h).
#   address  ASan + UBSan: every unit test and every CLI test, then a random GUI session of ATTNSCOPE_SELF_TEST_FRAMES
#            frames (default 1500) with its invariants (scripts/gui-soak.sh). Excluded: the lessons, and the two unit
#            tests that break a lesson's variant to see a speed claim fail (timing claims: about 2 of the 12 minutes
#            the tests took); set-up, the GUI screenshots and the source-file checks (style.*): the installer,
#            pictures and file contents, not memory safety. Also excluded, as numerics the release suite runs: the
#            tests that run the 135M decoder over hundreds of tokens (a forward pass there takes about two minutes
#            instead of two seconds; the tiny GGUF model's tests run the same code) and the lesson break tests that
#            take over 20 s (each check file keeps a quicker break test here). ImGui and ImPlot compile plainly there, as in the fuzz
#            tree (cmake/ImGuiDeps.cmake).
#   thread   TSan: the worker, job-queue, benchmark-job and large-block cache tests (attnscope_thread_tests).
#            OMP_NUM_THREADS=1: libgomp is not instrumented, so its own barriers would be reported as races.
# usage: scripts/sanitize.sh address|thread [BUILD_DIR]   (run scripts/setup.sh first; .ci/run does)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kind="${1:-}"
case "$kind" in
  address) sanitizers="address,undefined" ;;
  thread) sanitizers="thread" ;;
  *) echo "usage: scripts/sanitize.sh address|thread [BUILD_DIR]" >&2; exit 2 ;;
esac
build="${2:-$root/build-sanitize-$kind}"
start=$SECONDS
source "$root/scripts/build-env.sh"
gui=OFF; [ "$kind" = address ] && gui=ON
arch=(); [ "$kind" = address ] && arch=(-DATTNSCOPE_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v3 -DCMAKE_C_FLAGS=-march=x86-64-v3)
# -O1, not Release's -O3: the instrumented Eigen code compiles in half the time, which keeps a first CI run (cold
# ccache) inside its budget; the sanitizers see the same code paths either way.
generator_flags_for "$build"
cmake -S "$root" -B "$build" "${generator_flags[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DATTNSCOPE_WERROR=ON -DATTNSCOPE_GUI="$gui" \
  -DATTNSCOPE_CUDA=OFF -DATTNSCOPE_BENCH=OFF -DATTNSCOPE_SANITIZE="$sanitizers" "${arch[@]}" "${launcher_flags[@]}" >/dev/null
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
status=0
if [ "$kind" = address ]; then
  cmake --build "$build" -j "$(nproc)"
  build_s=$((SECONDS - start))
  (cd "$build" && ctest --output-on-failure -j "$(nproc)" \
     -E '^(lesson\.|LessonChecksCanFail\.(WindowsGlobalsWithADenseWindow|LinformerTable3WithADenseLinformer|StreamingLlmWithTheSinksDropped|FavorPlusWithOrthogonalIgnored|AttentionSinksWithSinksIgnored|LinearRnnWithACacheForAState|LowRankWithAFlatSpectrum|XlMemoryWithoutTheCache|TheCeilingWithSvdAtHalfTheRank|LshRoundsWithRoundsIgnored|TheCeilingWithABottomKOracle|TheCeilingWithAWindowOneKeyTooWide|TheCeilingWithSinksDropped)$|DecoderGolden\.PerplexityAgreesWithNumpyAndLlamaCpp$|DecoderWhatIf\.SinkInEveryLayerMatchesNumpy$|StreamingLLM\.TableMatchesNumpysCacheMaskAndRecompute$|setup\.|gui\.smoke|gui\.lessons|style\.)') \
     || status=$?
  tests_s=$((SECONDS - start - build_s))
  "$root/scripts/gui-soak.sh" "${ATTNSCOPE_SELF_TEST_FRAMES:-1500}" 1 "$build" || status=$?
  echo "sanitize address: GUI session $((SECONDS - start - build_s - tests_s)) s" >&2
else
  cmake --build "$build" -j "$(nproc)" --target attnscope_thread_tests
  build_s=$((SECONDS - start))
  OMP_NUM_THREADS=1 "$build/tests/attnscope_thread_tests" --gtest_filter='JobQueue.*:Worker*.*:BenchJob.*:LargeBlockCache.*' || status=$?
fi
echo "sanitize $kind: build ${build_s} s, tests $((SECONDS - start - build_s)) s, exit $status" >&2
exit "$status"
