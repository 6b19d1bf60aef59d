#!/usr/bin/env bash
# Builds the CUDA kernels (library and kernel workbenches) for every supported architecture, sm_80, sm_86, sm_89 and
# sm_90, with warnings as errors, in their own tree, and checks with cuobjdump that every kernel is in each
# architecture's code (ctest cuda.kernels_per_arch). The README's test command builds them only for this machine's GPU
# (one architecture when it has none), which halves a first build; CI runs this stage so the other architectures
# keep compiling. Without nvcc there is nothing to check (exit 0, said on stderr).
# usage: scripts/cuda-archs.sh [BUILD_DIR]   (run scripts/setup.sh first; .ci/run does)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build-cuda-archs}"
start=$SECONDS
source "$root/scripts/build-env.sh"
if ! command -v nvcc >/dev/null; then
  echo "cuda-archs: no nvcc on this machine: no CUDA code to check" >&2
  exit 0
fi
generator_flags_for "$build"
cmake -S "$root" -B "$build" "${generator_flags[@]}" -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_WERROR=ON -DATTNSCOPE_CUDA=ON \
  "-DATTNSCOPE_CUDA_ARCHS=80;86;89;90" -DATTNSCOPE_GUI=OFF -DATTNSCOPE_BENCH=OFF "${launcher_flags[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)" --target attnscope_cuda kernels_dev
build_s=$((SECONDS - start))
status=0
(cd "$build" && ctest --output-on-failure -R '^cuda\.kernels_per_arch$') || status=$?
echo "cuda-archs: build ${build_s} s (sm_80, sm_86, sm_89, sm_90), check $((SECONDS - start - build_s)) s, exit $status" >&2
exit "$status"
