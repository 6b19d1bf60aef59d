#!/usr/bin/env bash
# Packs what a CUDA build of attnscope needs beyond a bare GPU machine's own toolchain (a C++ compiler, CMake,
# pkg-config, the CUDA toolkit, python3) into one archive, so that scripts/gpu-check.sh --deps builds and checks
# the project there without network. Run it on a Debian 12 machine where scripts/setup.sh has run.
#
# The archive holds one folder laid out like /usr, multiarch paths kept so each package's CMake config finds its own
# prefix: the headers (Eigen, nlohmann/json, CLI11, stb, FFTW, LAPACKE, OpenBLAS's cblas, GoogleTest), the CMake
# configs, the shared libraries dereferenced with their unversioned links (OpenBLAS, LAPACK, LAPACKE, FFTW single,
# gfortran, quadmath), GoogleTest's static libraries, fftw3f.pc with its prefix left as @PREFIX@ (gpu-check.sh
# writes the unpacked path), the figure font (DejaVu Sans; gpu-check.sh exports ATTNSCOPE_FONT to it), and CUTLASS's
# headers with its fused attention as scripts/setup.sh unpacked them from the pinned nvidia-cutlass wheel
# (usr/share/attnscope/cutlass; gpu-deps-env.sh exports ATTNSCOPE_CUTLASS_DIR to it), and the llama.cpp sources the
# decoder's GGUF reader and tokenizer compile from (usr/share/attnscope/llama.cpp: ATTNSCOPE_LLAMA_CPP_DIR).
# Not packed: the text encoder's and decoder's weights (~90 and ~98 MB, above what a device call carries), so text
# inputs and the lessons on text are reported as not run there; Dear ImGui (the GUI is built only where there is a display).
#
# usage: scripts/gpu-pack.sh [OUT_DIR]            write OUT_DIR/attnscope-gpu-deps.tar.xz and OUT_DIR/MANIFEST.txt
#                                                 (default OUT_DIR: .gpu-pack in the repository, ignored by git)
#        scripts/gpu-pack.sh --verify [OUT_DIR]   unpack the archive into OUT_DIR/verify and configure, build and run
#                                                 there with the system's packages hidden from CMake and checked absent
#                                                 from the headers read and the libraries loaded (VERIFY_CUDA=ON: with
#                                                 the CUDA backend, sm_90)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
verify=0
if [ "${1:-}" = "--verify" ]; then verify=1; shift; fi
out="${1:-$root/.gpu-pack}"
archive="$out/attnscope-gpu-deps.tar.xz"
say() { printf '[gpu-pack] %s\n' "$*" >&2; }
die() { printf 'gpu-pack: %s\n' "$*" >&2; exit 1; }

multiarch="$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)"
sys_lib="/usr/lib/$multiarch"

pack() {
  local stage usr lib
  stage="$(mktemp -d)"
  trap 'rm -rf "$stage"' RETURN
  usr="$stage/usr"
  lib="$usr/lib/$multiarch"
  mkdir -p "$usr/include" "$usr/share/cmake" "$lib/cmake" "$lib/pkgconfig" "$usr/share/fonts"
  # need PATH: a file or folder the build needs; a missing one names the Debian package to install.
  need() { [ -e "$1" ] || die "$1 is missing: run scripts/setup.sh (it installs $2), then retry"; }
  local d
  for d in eigen3:libeigen3-dev nlohmann:nlohmann-json3-dev CLI:libcli11-dev stb:libstb-dev gtest:libgtest-dev \
           gmock:libgmock-dev; do
    need "/usr/include/${d%%:*}" "${d#*:}"
    cp -r "/usr/include/${d%%:*}" "$usr/include/"
  done
  local h
  for h in fftw3.h:libfftw3-dev lapack.h:liblapacke-dev lapacke.h:liblapacke-dev lapacke_config.h:liblapacke-dev \
           lapacke_mangling.h:liblapacke-dev lapacke_utils.h:liblapacke-dev; do
    need "/usr/include/${h%%:*}" "${h#*:}"
    cp "/usr/include/${h%%:*}" "$usr/include/"
  done
  for h in cblas.h openblas_config.h; do  # Debian's alternatives links: the OpenBLAS build the project links
    need "/usr/include/$multiarch/$h" libopenblas-dev
    cp -L "/usr/include/$multiarch/$h" "$usr/include/"
  done
  need /usr/share/eigen3/cmake libeigen3-dev
  mkdir -p "$usr/share/eigen3" && cp -r /usr/share/eigen3/cmake "$usr/share/eigen3/"
  for d in CLI11 nlohmann_json; do need "/usr/share/cmake/$d" "the $d -dev package"; cp -r "/usr/share/cmake/$d" "$usr/share/cmake/"; done
  need "$sys_lib/cmake/GTest" libgtest-dev
  cp -r "$sys_lib/cmake/GTest" "$lib/cmake/"
  # Shared libraries: the file itself (dereferenced), its soname, and the unversioned name the linker looks for.
  local pair so link
  for pair in libopenblas.so.0:libopenblas.so liblapack.so.3:liblapack.so libblas.so.3:libblas.so \
              liblapacke.so.3:liblapacke.so libtmglib.so.3:libtmglib.so libfftw3f.so.3:libfftw3f.so \
              libgfortran.so.5:libgfortran.so libquadmath.so.0:libquadmath.so; do
    so="${pair%%:*}" link="${pair#*:}"
    need "$sys_lib/$so" "the package of $so"
    cp -L "$sys_lib/$so" "$lib/$so"
    ln -sf "$so" "$lib/$link"
  done
  for a in libgtest.a libgtest_main.a libgmock.a libgmock_main.a; do need "$sys_lib/$a" libgtest-dev; cp "$sys_lib/$a" "$lib/"; done
  need "$sys_lib/pkgconfig/fftw3f.pc" libfftw3-dev
  sed 's|^prefix=.*|prefix=@PREFIX@|' "$sys_lib/pkgconfig/fftw3f.pc" > "$lib/pkgconfig/fftw3f.pc"
  need /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf fonts-dejavu-core
  cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf "$usr/share/fonts/"
  local cutlass
  cutlass="${ATTNSCOPE_CACHE:-$HOME/.cache/attnscope}/third_party/cutlass-$(awk '$1 == "nvidia-cutlass" {print $2}' \
    "$root/scripts/deps.lock")"
  [ -f "$cutlass/.complete" ] || die "CUTLASS is not unpacked in $cutlass: run scripts/setup.sh on a machine with nvcc"
  mkdir -p "$usr/share/attnscope/cutlass"
  cp -r "$cutlass/include" "$cutlass/fused_attention" "$cutlass/LICENSE.txt" "$usr/share/attnscope/cutlass/"
  # ggml's GGUF reader and llama.cpp's tokenizer (cmake/LlamaVocab.cmake compiles them into every build).
  local llama
  llama="${ATTNSCOPE_CACHE:-$HOME/.cache/attnscope}/third_party/llama.cpp-$(awk '$1 == "llama-cpp-python" {print $2}' \
    "$root/scripts/deps.lock")"
  [ -f "$llama/.complete" ] || die "llama.cpp's sources are not unpacked in $llama: run scripts/setup.sh"
  mkdir -p "$usr/share/attnscope/llama.cpp"
  cp -r "$llama/." "$usr/share/attnscope/llama.cpp/"
  mkdir -p "$out"
  {
    echo "attnscope GPU dependency pack, made $(date -u '+%Y-%m-%d %H:%M UTC') on $(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "from the Debian packages:"
    dpkg-query -W -f='  ${Package} ${Version}\n' libeigen3-dev nlohmann-json3-dev libcli11-dev libstb-dev libgtest-dev \
      libgmock-dev libfftw3-dev libfftw3-single3 liblapacke-dev libopenblas-dev libopenblas0-pthread libgfortran5 \
      libquadmath0 fonts-dejavu-core 2>/dev/null || true
    echo "files:"
    (cd "$stage" && find usr -type f -o -type l | sort | sed 's/^/  /')
  } > "$out/MANIFEST.txt"
  tar -C "$stage" -cJf "$archive" usr
  say "wrote $archive ($(du -h "$archive" | cut -f1)) and $out/MANIFEST.txt"
}

# verify: configure and build from the archive alone, as gpu-check.sh --deps does on a GPU machine, then run the
# command-line paths that load each packed library (LAPACKE and OpenBLAS: svd; FFTW: fnet; stb and the font: a PNG
# figure). The work folder stays under OUT_DIR so a second verification reuses the compiler cache.
verify() {
  [ -f "$archive" ] || die "$archive is missing: run scripts/gpu-pack.sh first"
  local work="$out/verify"
  rm -rf "$work"
  mkdir -p "$work"
  # shellcheck source=scripts/gpu-deps-env.sh
  source "$root/scripts/gpu-deps-env.sh" "$archive" "$work/deps"
  local cuda="${VERIFY_CUDA:-OFF}"
  say "configure with only the pack visible (CUDA $cuda, GUI off)"
  # A compiler cache of its own: a hit restores the dependency file of the compile it came from, and one from a
  # build against the system's headers would name them.
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  export CCACHE_DIR="$out/ccache"
  cmake -S "$root" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_WERROR=ON -DATTNSCOPE_GUI=OFF \
    -DATTNSCOPE_BENCH=OFF -DATTNSCOPE_CUDA="$cuda" -DATTNSCOPE_CUDA_ARCHS=90 -DCMAKE_PREFIX_PATH="$ATTNSCOPE_GPU_DEPS" \
    -DCMAKE_IGNORE_PREFIX_PATH="/usr;/usr/local;/" "${launcher[@]}" > "$work/configure.log" 2>&1 \
    || { tail -40 "$work/configure.log" >&2; die "configure failed with only the pack visible (log above)"; }
  # Every dependency CMake found must come from the pack.
  local leaked
  leaked="$(grep -E '^(LAPACKE|OPENBLAS|STB|FFTW3F|Eigen3|nlohmann_json|CLI11|GTest)[A-Za-z_]*(_DIR|_LIBRARY|_INCLUDE_DIR|_LIBDIR|_PREFIX):[A-Z]+=/usr' \
    "$work/build/CMakeCache.txt" || true)"
  [ -z "$leaked" ] || die "these were found outside the pack: $leaked"
  if [ "$cuda" = ON ] && ! grep -q "^ATTNSCOPE_CUTLASS_DIR:PATH=$ATTNSCOPE_GPU_DEPS/" "$work/build/CMakeCache.txt"; then
    die "CUTLASS was not taken from the pack: $(grep '^ATTNSCOPE_CUTLASS_DIR' "$work/build/CMakeCache.txt")"
  fi
  say "build attnscope"
  cmake --build "$work/build" -j "$(nproc)" --target attnscope > "$work/build.log" 2>&1 \
    || { grep -n -A8 -E 'error' "$work/build.log" | head -60 >&2; die "the build from the pack failed (errors above)"; }
  # The compiler searches /usr/include whatever CMake was told: every packed header it read must be the pack's (a
  # path that starts with /usr/include, not the pack's own …/usr/include).
  leaked="$(find "$work/build" -name '*.d' -exec grep -hoE '(^| )/usr/include/(eigen3|nlohmann|CLI|stb|gtest|gmock|fftw3|lapack|cblas|openblas|x86_64-linux-gnu/(cblas|openblas))[^ :\\]*' {} + 2>/dev/null | sort -u || true)"
  [ -z "$leaked" ] || die "the build read headers from the system, not the pack: $(echo "$leaked" | head -n 5 | paste -sd " " -)"
  local app="$work/build/app/attnscope" outside
  outside="$(ldd "$app" | awk '/=>/ {print $3}' | grep -v -E "^$ATTNSCOPE_GPU_DEPS|/(libc|libm|libstdc\+\+|libgcc_s|libgomp|libpthread|libdl|librt)\.so|/ld-linux|/usr/local/cuda|libcuda|libnvidia" || true)"
  [ -z "$outside" ] || die "attnscope loads libraries from outside the pack: $outside"
  say "run svd (LAPACKE, OpenBLAS), fnet (FFTW) and a PNG figure (stb, the font) on the packed libraries"
  "$app" run --variant full,svd,fnet --n 128 --heads 2 --dim 32 --backend cpu --json "$work/run.json" > /dev/null \
    || die "svd or fnet failed on the packed libraries"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; sys.exit(0 if len(r)==3 and all(x['metrics']['rel_err_out'] is not None for x in r) else 1)" \
    "$work/run.json" || die "the run on the packed libraries gave no errors to read"
  "$app" figure --variant full,longformer --n 64 --heads 1 --dim 16 --out "$work/figure.png" > /dev/null 2>&1 \
    || die "a figure could not be drawn with the packed font"
  say "verified: configured, built and run from $archive alone ($(grep -c . "$work/build/CMakeCache.txt") cache lines, none from /usr)"
}

if [ "$verify" -eq 1 ]; then verify; else pack; fi
