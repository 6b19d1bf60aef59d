#!/usr/bin/env bash
# `attnscope figure` and the exports scripts use: a mask figure of three instances as PNG (with content)
# and SVG (naming each instance and the legend), two instances of one variant never sharing a file, run --png /
# --csv / --npy named by instance and head, CSV with token headers, and run --session reading a GUI session.
# usage: figure.sh ATTNSCOPE_BINARY PNG_STATS WORK_DIR SESSIONS_DIR
set -euo pipefail
app="$1"; stats="$2"; work="$3"; sessions="$4"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "figure: $*"; exit 1; }

"$app" figure --variant full,longformer:window=8,bigbird:block=4 --data hubs --n 64 --heads 2 --dim 16 --view mask \
  --out fig.png --out fig.svg --size 1280x720 --dpi 96
"$stats" fig.png 64
for text in "Full softmax" "Longformer w = 8" "BigBird b = 4, r = 3" "allowed because:" "not allowed (never scored)"; do
  grep -q "$text" fig.svg || fail "'$text' missing from fig.svg"
done
python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse('fig.svg')" || fail "fig.svg is not well-formed XML"

# Two instances of svd: two files each, named by rank and by head; CSV and NPY too.
"$app" run --variant svd:rank=4,svd:rank=16 --data lowrank --n 48 --heads 2 --dim 16 --png pngs --csv csvs --npy npys >/dev/null
for f in pngs/svd-r4-head0.png pngs/svd-r4-head1.png pngs/svd-r16-head1.png csvs/svd-r16-head0.csv npys/P_eff-svd-r4.npy \
         npys/P_eff-svd-r16.npy; do
  [ -s "$f" ] || fail "$f missing"
done
"$stats" pngs/svd-r16-head1.png 64
grep -q '"instance": "SVD r = 16"' npys/index.json || fail "index.json does not name the instance"
head -c 1 csvs/svd-r4-head0.csv | grep -q '[0-9-]' || fail "a synthetic CSV (no tokens) starts with a header"

# Text: the CSV carries token headers and run --head 3 names files by head 3 (when the model is present).
if "$app" run --variant full --text "Tokens head the columns." --head 3 --png tpng --csv tcsv >/dev/null 2>text.err; then
  [ -s tpng/full-head3.png ] || fail "run --head 3 did not write full-head3.png"
  head -n 1 tcsv/full-head3.csv | grep -q '^query\\key,\[CLS\],token,##s,head,' || fail "CSV header: $(head -n 1 tcsv/full-head3.csv)"
  sed -n 2p tcsv/full-head3.csv | grep -q '^\[CLS\],' || fail "CSV rows do not start with their token"
else
  echo "figure: text cases skipped ($(cat text.err))"
fi

# A GUI session is enough for run and figure.
"$app" run --session "$sessions/sweep_instances.json" --csv scsv >/dev/null
[ -s scsv/performer-m111-no-orthogonal-head0.csv ] && [ -s scsv/performer-m111-orthogonal-head0.csv ] || fail "run --session: $(ls scsv)"
"$app" figure --session "$sessions/causal_diff.json" --out sfig.png >/dev/null
"$stats" sfig.png 64
# The error–cost map: points of every instance and budget value, the Pareto front marked, JSON and CSV.
"$app" errmap --variant longformer,sink,full --param budget=8:32:x2 --data local --n 256 --heads 2 --dim 16 --y mass_loss \
  --json map.json --csv map.csv >/dev/null
python3 - <<'PY' || fail "errmap JSON"
import json
m = json.load(open("map.json"))
names = [p["instance"] for p in m["points"]]
assert len(names) == 7, names                      # 3 longformer + 3 sink + full
assert any(p["pareto"] for p in m["points"]), "no Pareto point"
assert all(p["mass_loss"] is None for p in m["points"] if p["variant"] == "full")
PY
[ "$(wc -l < map.csv)" -eq 8 ] || fail "map.csv: $(cat map.csv)"
# Every view as PNG and SVG from one canvas: each checked by what it must show (figure_views.py).
views="$(dirname "$0")/figure_views.py"
view() {  # view NAME [figure options…] -- [figure_views.py checks…]
  local name="$1"; shift
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  "$app" figure "${opts[@]}" --out "$name.png" --out "$name.svg" --size 1280 --dpi 96 >/dev/null || fail "figure $name failed"
  python3 "$views" "$name.svg" "$stats" "$name.png" "$@" || fail "figure $name: content"
}
view weights --view weights --variant full,svd:rank=4 --data lowrank --n 48 --heads 2 --dim 16 -- \
  "Full softmax" "SVD r = 4" "P_eff (effective attention), head 0" "P_eff (log10 scale)" "1e-1" "rows: queries · columns: keys"
view difference --view difference --variant flash,svd:rank=4 --data lowrank --n 48 --heads 2 --dim 16 -- \
  "Flash" "SVD r = 4" "P_eff − P (exact softmax), head 0" "max |P_eff − P| = " "P_eff − P"
view spectrum --view spectrum --variant linformer:k=8,svd:rank=4 --data lowrank --n 64 --heads 2 --dim 16 -- \
  --min-polylines 6 "Singular values σᵢ" "Cumulative share of Σσ up to index i" "exact P" "Linformer k = 8, projection pool" \
  "SVD r = 4" "10⁻" "index i (descending σ)" "SVD r = 4: 90% of Σσ within the top"
view buckets --view buckets --variant lsh:buckets=4:rounds=2,full --data clustered --n 64 --heads 2 --dim 16 -- \
  --count 'stroke="#ffffff"=6' "LSH n_r = 2" "Full softmax" "round 0" "round 1" "axes in round 0's bucket order"
view ordered --view mask --order bucket --round 1 --variant lsh:buckets=4:rounds=2,longformer:window=8 --data clustered --n 64 \
  --heads 2 --dim 16 -- --count 'stroke="#ffffff"=6' "axes in round 1's bucket order" "Longformer w = 8" "allowed because:"
view clusters --view weights --order clusters --variant full --data clustered --n 64 --heads 2 --dim 16 -- \
  "cluster" "axes in cluster order"
view sweep --view sweep --variant longformer,sink --param budget=4:32:x2 --seeds 2 --data local --n 64 --heads 2 --dim 16 -- \
  --min-polylines 2 --min-polygons 2 "Longformer" "Sink s = 4" "rel_err_out against budget (window)" "mean over 2 seeds" \
  "budget (window)" "4" "8" "16" "32"
view errmap --view errmap --variant longformer,sink,full --param budget=8:32:x2 --y mass_loss --x flops --data local --n 64 \
  --heads 2 --dim 16 -- --min-rings 1 "Longformer w = 8" "Longformer w = 32" "Sink w = 16, s = 4" "analytic FLOPs per run" \
  "1 − exact softmax mass kept" "ring: on the Pareto front"
view heads --view heads --variant longformer:window=4,sink:window=4 --data hubs --n 64 --heads 3 --dim 16 -- \
  --min-values 6 "Longformer w = 4" "Sink w = 4, s = 4" "layer" "head" "mass kept"
view sinks --view sinks --variant full --data hubs --n 48 --heads 2 --dim 16 -- \
  "Attention each key receives" "mean attention received" "key position" "uniform 1/n" "largest: position"
view performance --view performance --variant flash,longformer --sizes 64,128 --runs 5 --heads 2 --dim 16 -- \
  --min-polylines 4 --min-polygons 2 "Flash" "Longformer" "O(n) guide" "O(n²) guide" "time per run (ms)" \
  "peak tracked memory (MiB)" "Benchmark: gaussian input"
view dark --view sweep --theme dark --variant svd --param rank=2:8:x2 --seeds 1 --data lowrank --n 32 --heads 1 --dim 8 -- "SVD"
grep -q 'fill="#16161a"' dark.svg || fail "the dark theme's background is missing from dark.svg"
# A chart view without what it needs says so before running.
if "$app" figure --view sweep --variant svd --data lowrank --n 32 --out x.png 2>err.txt; then fail "a sweep without --param succeeded"; fi
grep -q -- "--param" err.txt || fail "the sweep error does not name --param: $(cat err.txt)"
if "$app" figure --view buckets --variant full --data hubs --n 32 --out x.png 2>err.txt; then fail "buckets without lsh succeeded"; fi
grep -q "lsh" err.txt || fail "the buckets error does not name lsh: $(cat err.txt)"
# The heads grid draws masked instances only, as the panel and --heads-csv do; with none it says so.
if "$app" figure --view heads --variant full,flash --data hubs --n 32 --out x.png 2>err.txt; then fail "heads without a mask succeeded"; fi
grep -q "none of the instances has a mask" err.txt || fail "the heads error does not say a mask is needed: $(cat err.txt)"
# A session saved in the bucket order draws in that order.
python3 - "$sessions/causal_diff.json" <<'PY' > lsh_session.json
import json, sys
s = json.load(open(sys.argv[1]))
s["variants"] = [{"id": "lsh", "params": {"buckets": 4, "rounds": 2}}, {"id": "full", "params": {}}]
s.setdefault("view", {}).update({"order": "lsh", "order_round": 0, "diff": False, "mask": False})
print(json.dumps(s))
PY
"$app" figure --session lsh_session.json --out lsh_session.svg >/dev/null || fail "figure --session with the lsh order failed"
grep -q "axes in round 0's bucket order" lsh_session.svg || fail "figure --session ignored the session's bucket order"
echo "figure: all checks passed"
