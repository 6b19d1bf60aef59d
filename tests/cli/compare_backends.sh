#!/usr/bin/env bash
# scripts/gpu_compare_backends.py, the comparison scripts/gpu-check.sh makes of cuda against cpu, run here on the two
# CPU backends: every registered variant gives the same O on cpu-portable (no hand-written vector kernels) as on
# cpu. Then the comparison must fail where it should: an output altered by one value, a variant missing, another
# input; and at a tolerance of 1e-12 it must fail exactly when the two backends run different code: when this build
# has vector kernels (AVX-512 or AVX2: flash's online softmax rounds differently there) and pass when it has none
# (an x86-64-v2 build: "cpu" runs the portable code too, bit for bit).
# usage: compare_backends.sh ATTNSCOPE_BINARY WORK_DIR
set -euo pipefail
app="$1"; work="$2"
compare="$(cd "$(dirname "$0")/../../scripts" && pwd)/gpu_compare_backends.py"
rm -rf "$work"; mkdir -p "$work"
variants="$("$app" variants | grep -E '^[a-z]' | cut -d' ' -f1 | paste -sd, -)"
for backend in cpu cpu-portable; do
  "$app" run --variant "$variants" --data gaussian --n 256 --heads 2 --dim 32 --backend "$backend" --npy "$work/$backend" \
    > "$work/$backend.txt" 2>&1
done
# The run table names the backend: "… AVX2 flash, block-sparse and vslash kernels" or "… portable Eigen kernels".
head -n 1 "$work/cpu.txt"
if grep -q 'portable Eigen kernels' "$work/cpu.txt"; then vector=0; else vector=1; fi
grep -q -E 'AVX-512|AVX2|portable Eigen kernels' "$work/cpu.txt" || { echo "the cpu run does not name its kernels"; exit 1; }
python3 "$compare" "$work/cpu" "$work/cpu-portable" | tee "$work/table.md"
rows="$(grep -c '| yes |' "$work/table.md")"
[ "$rows" -eq "$(echo "$variants" | tr ',' '\n' | wc -l)" ] || { echo "expected a passing row per variant, got $rows"; exit 1; }

expect_rc() {  # expect_rc RC WHAT ARGS...
  local want="$1" what="$2"; shift 2
  set +e; python3 "$compare" "$@" > "$work/out.txt" 2>&1; local rc=$?; set -e
  [ "$rc" -eq "$want" ] || { echo "$what: expected exit $want, got $rc"; cat "$work/out.txt"; exit 1; }
  echo "$what: exit $rc as expected"
}
if [ "$vector" -eq 1 ]; then
  expect_rc 1 "tolerance 1e-12 (the vector kernels' online softmax rounds differently)" "$work/cpu" "$work/cpu-portable" \
    --tolerance 1e-12
else
  expect_rc 0 "tolerance 1e-12 (no vector kernels in this build: both backends run the same code)" "$work/cpu" \
    "$work/cpu-portable" --tolerance 1e-12
fi
# One value of flash's O moved by 1.0: its row must fail, the others pass.
cp -r "$work/cpu-portable" "$work/altered"
python3 - "$work/altered/O-flash.npy" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
end = len(data) - 4
struct.pack_into("<f", data, end, struct.unpack_from("<f", data, end)[0] + 1.0)
open(sys.argv[1], "wb").write(data)
PY
expect_rc 1 "flash's last output value moved by 1" "$work/cpu" "$work/altered"
grep -q '| flash | .* | \*\*no\*\* |' "$work/out.txt" || { echo "the altered flash row is not marked failed"; cat "$work/out.txt"; exit 1; }
python3 - "$work/altered/index.json" <<'PY'
import json, sys
index = json.load(open(sys.argv[1]))
index["results"] = [r for r in index["results"] if r["label"] != "fnet"]
json.dump(index, open(sys.argv[1], "w"))
PY
expect_rc 1 "fnet missing from the second bundle" "$work/cpu" "$work/altered"
"$app" run --variant full --data gaussian --n 128 --heads 2 --dim 32 --backend cpu --npy "$work/other" > /dev/null 2>&1
expect_rc 1 "another input" "$work/cpu" "$work/other"
expect_rc 2 "no bundle" "$work/cpu" "$work/nothing-here"
