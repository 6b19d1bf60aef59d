#!/usr/bin/env bash
# `figure --session` and `run --session` read a session file through core/session/session_file.h, so they work in
# every build, with or without the GUI: the figure draws the session's instances, input, head and difference view;
# run names the session's instances (or --variant's); a session naming only a lesson means the lesson's setup.
# usage: session.sh ATTNSCOPE_BINARY PNG_STATS WORK_DIR SESSIONS_DIR
set -euo pipefail
app="$1"; stats="$2"; work="$3"; sessions="$4"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "session: $*"; exit 1; }

# causal_diff.json: periodic n = 192, H = 2, d = 32; full and flash (32×16 tiles), causal; difference view, head 1.
"$app" figure --session "$sessions/causal_diff.json" --out s.svg --out s.png > out.txt
grep -qx "wrote s.svg" out.txt && grep -qx "wrote s.png" out.txt || fail "figure --session printed: $(cat out.txt)"
"$stats" s.png 64
for text in "periodic, n = 192, H = 2, d = 32" "Full softmax causal" "Flash B_r = 32, B_c = 16, causal" \
            "P_eff − P (exact softmax, causal), head 1"; do
  grep -qF "$text" s.svg || fail "'$text' missing from the session's figure"
done
# --variant replaces the session's instances; the input and view stay the session's.
"$app" figure --session "$sessions/causal_diff.json" --variant longformer:window=8 --out v.svg > /dev/null
grep -qF "Longformer w = 8" v.svg && grep -qF "periodic, n = 192" v.svg || fail "figure --session --variant lost the instance or the input"
! grep -qF "Flash" v.svg || fail "figure --session --variant still draws the session's flash"

# sweep_instances.json: two performer instances, svd and linformer on lowrank n = 128.
"$app" run --session "$sessions/sweep_instances.json" --json run.json --png pngs > table.txt
for label in "Performer m = 111, orthogonal" "Performer m = 111, orthogonal off" "SVD r = 32" "Linformer k = 64, projection pool"; do
  grep -qF "$label" table.txt || fail "run --session table lacks '$label': $(cat table.txt)"
done
grep -qF "n=128 H=2 d=32" table.txt || fail "run --session did not run the session's input: $(head -n 1 table.txt)"
python3 - <<'PY' || fail "run --session JSON"
import json
r = json.load(open("run.json"))
assert [x["variant"] for x in r["results"]] == ["performer", "performer", "svd", "linformer"], r["results"]
assert r["input"]["n"] == 128 and r["input"]["heads"] == 2, r["input"]
PY
[ -s pngs/performer-m111-orthogonal-head1.png ] || fail "run --session --png: $(ls pngs)"
"$stats" pngs/svd-r32-head0.png 64

# A session that names only a lesson: the lesson's input and instances (factorised: periodic n = 256, three causal
# and factorised patterns).
"$app" run --session "$sessions/lesson_check.json" > lesson.txt
for label in "Full softmax causal" "Strided l = 16, head_pattern split" "Fixed l = 16, c = 4, head_pattern split"; do
  grep -qF "$label" lesson.txt || fail "a lesson-only session lacks '$label': $(cat lesson.txt)"
done
grep -qF "n=256 H=2 d=32" lesson.txt || fail "a lesson-only session did not run the lesson's input: $(head -n 1 lesson.txt)"
echo "session: all checks passed"
