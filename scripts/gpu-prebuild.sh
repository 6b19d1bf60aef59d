#!/usr/bin/env bash
# Builds here (Debian 12 with the CUDA toolkit; no GPU needed) the programs scripts/gpu-check.sh runs, for one GPU
# architecture, and stages them stripped in one small folder to carry to a GPU machine beside the dependency pack,
# so that a short GPU lease measures instead of compiling. Built without -march=native (the GPU machine's CPU is
# another one) and without the GUI.
#   scripts/gpu-prebuild.sh [ARCH] [OUT_DIR]      (default: 90 and .gpu-prebuilt)
# then, on the GPU machine:
#   PREBUILT=1 scripts/gpu-check.sh --deps .gpu-pack/attnscope-gpu-deps.tar.xz .gpu-prebuilt
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
arch="${1:-90}"
out="${2:-$root/.gpu-prebuilt}"
build="$root/build-sm$arch"
# shellcheck source=scripts/build-env.sh
source "$root/scripts/build-env.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_WERROR=ON -DATTNSCOPE_CUDA=ON \
  "-DATTNSCOPE_CUDA_ARCHS=$arch" -DATTNSCOPE_GUI=OFF -DATTNSCOPE_NATIVE=OFF "${launcher_flags[@]}" > /dev/null
cmake --build "$build" -j "$(nproc)" --target attnscope attnscope_tests kernels_dev
rm -rf "$out"
mkdir -p "$out/app" "$out/tests" "$out/core/backend/cuda"
strip -o "$out/app/attnscope" "$build/app/attnscope"
strip -o "$out/tests/attnscope_tests" "$build/tests/attnscope_tests"
for program in "$build"/core/backend/cuda/*_dev; do
  strip -o "$out/core/backend/cuda/$(basename "$program")" "$program"
done
dirty=""
[ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ] && dirty=" (the working tree differs from it)"
echo "commit $(git -C "$root" rev-parse --short HEAD)$dirty, sm_$arch, built $(date -u '+%Y-%m-%d %H:%M UTC')" \
  "on $(. /etc/os-release && echo "$PRETTY_NAME") with $(c++ --version | head -n 1)" > "$out/PREBUILT"
echo "gpu-prebuild: $(du -sh "$out" | cut -f1) in $out: $(cat "$out/PREBUILT")"
