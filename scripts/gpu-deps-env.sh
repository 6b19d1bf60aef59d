# shellcheck shell=bash
# attnscope — sourced by scripts/gpu-check.sh --deps and scripts/gpu-pack.sh --verify:
#   source scripts/gpu-deps-env.sh ARCHIVE DIR
# unpacks ARCHIVE (made by scripts/gpu-pack.sh) into DIR and exports what a build and its programs need to use it
# and nothing else: ATTNSCOPE_GPU_DEPS (the unpacked usr folder, for -DCMAKE_PREFIX_PATH), CPATH (its headers
# before the system's), PKG_CONFIG_PATH, LIBRARY_PATH and LD_LIBRARY_PATH (its libraries), ATTNSCOPE_FONT (the
# figure font), ATTNSCOPE_CUTLASS_DIR (CUTLASS's headers and fused attention), ATTNSCOPE_LLAMA_CPP_DIR (the llama.cpp
# sources of the GGUF reader and tokenizer). Returns 1 with a sentence when the
# archive cannot be unpacked.
gpu_deps_archive="$1" gpu_deps_dir="$2"
if [ ! -f "$gpu_deps_archive" ]; then
  echo "gpu-deps: $gpu_deps_archive not found: make it with scripts/gpu-pack.sh on a Debian 12 machine" >&2
  return 1
fi
mkdir -p "$gpu_deps_dir"
tar -C "$gpu_deps_dir" -xJf "$gpu_deps_archive" || { echo "gpu-deps: $gpu_deps_archive could not be unpacked" >&2; return 1; }
gpu_deps_lib="$(ls -d "$gpu_deps_dir"/usr/lib/*-linux-gnu | head -n 1)"
export ATTNSCOPE_GPU_DEPS="$gpu_deps_dir/usr"
sed -i "s|@PREFIX@|$ATTNSCOPE_GPU_DEPS|" "$gpu_deps_lib/pkgconfig/fftw3f.pc"
export CPATH="$ATTNSCOPE_GPU_DEPS/include${CPATH:+:$CPATH}"
export PKG_CONFIG_PATH="$gpu_deps_lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LIBRARY_PATH="$gpu_deps_lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
export LD_LIBRARY_PATH="$gpu_deps_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export ATTNSCOPE_FONT="$ATTNSCOPE_GPU_DEPS/share/fonts/DejaVuSans.ttf"
export ATTNSCOPE_CUTLASS_DIR="$ATTNSCOPE_GPU_DEPS/share/attnscope/cutlass"
export ATTNSCOPE_LLAMA_CPP_DIR="$ATTNSCOPE_GPU_DEPS/share/attnscope/llama.cpp"
unset gpu_deps_archive gpu_deps_dir gpu_deps_lib
