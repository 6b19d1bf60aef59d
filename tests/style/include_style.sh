#!/usr/bin/env bash
# One include style: every quoted #include names its file from the repository root ("core/session/metrics.h"),
# so a reader finds it without knowing which folder the includer sits in and a moved file is one search away.
# Allowed besides: headers the build generates (attnscope_*.h, found through the build's include folders) and the
# CUDA emulation headers, which stand in for <cuda_runtime.h> and friends. Exits 1 listing every other include.
# usage: include_style.sh REPO_ROOT
set -euo pipefail
cd "$1"
bad=0
while IFS= read -r -d '' file; do
  while IFS= read -r line; do
    target="${line#*\"}"; target="${target%%\"*}"
    case "$target" in attnscope_*.h) continue ;; esac
    if [[ ! -f "$target" ]]; then
      echo "$file: #include \"$target\" is not a path from the repository root"
      bad=1
    fi
  done < <(grep -E '^\s*#\s*include\s*"' "$file" || true)
done < <(find app core bench tests -path tests/emu/include -prune -o \
           \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -type f -print0)
if [[ $bad -ne 0 ]]; then
  echo "write each quoted include as the file's path from the repository root"
  exit 1
fi
echo "every quoted include is a path from the repository root"
