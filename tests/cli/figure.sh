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
echo "figure: all checks passed"
