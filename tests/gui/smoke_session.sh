#!/usr/bin/env bash
# Runs inside one X server (see smoke.sh):
#   1. every panel in turn (--panel) with synthetic input, and with text input when the build has it;
#   2. sessions covering causal + difference view, large n with the pooled view, and a zoomed full-resolution detail;
#      lessons (--lesson, a check run in the Lesson window) and a finished metric sweep in the Sweep panel;
#   3. a bad input must show the error banner (exit 3) without crashing;
#   4. a random-interaction run (--self-test-frames) must finish without a crash.
# usage: smoke_session.sh ATTNSCOPE_BINARY OUT_DIR PNG_STATS
set -euo pipefail
app="$1"; out="$2"; stats="$3"
here="$(cd "$(dirname "$0")" && pwd)"
shot() {  # shot NAME ARGS...: the app must exit 0 (no error banner) and the PNG must have content
  local name="$1"; shift
  rm -f "$out/$name.png"
  "$app" gui --screenshot "$out/$name.png" --frames 8 "$@"
  "$stats" "$out/$name.png" 64
}
for panel in input variants matrices lsh spectrum performance debug; do
  shot "synthetic_$panel" --panel "$panel"
done
shot causal_diff --session "$here/sessions/causal_diff.json" --panel spectrum
shot large_n --session "$here/sessions/large_n.json"
shot zoom_lod --session "$here/sessions/zoom_lod.json"
shot lsh_preview --session "$here/sessions/lsh_preview.json" --panel lsh
shot performance --session "$here/sessions/performance.json" --panel performance
# Lessons and sweeps (issue 9): a lesson opened with --lesson, a lesson's check run from its window, and a
# finished metric sweep of three variants with min–max bands (the app logs what the window shows).
shot_expect() {  # shot_expect NAME PATTERN ARGS...: like shot, and the app's log must match PATTERN
  local name="$1" pattern="$2"; shift 2
  shot "$name" "$@" | tee "$out/$name.log"
  grep -qE "$pattern" "$out/$name.log" || { echo "$name: the log does not match '$pattern'"; exit 1; }
}
shot_expect lesson_lsh "lesson lsh-rounds shown" --lesson lsh-rounds --save-session "$out/lesson_session.json"
for key in '"lesson"' '"id": "lsh-rounds"' '"sweep"' '"rounds": 4.0'; do  # the preset's variant and the lesson survive
  grep -q "$key" "$out/lesson_session.json" || { echo "lesson session: $key missing from $out/lesson_session.json"; exit 1; }
done
shot_expect lesson_check "lesson factorised shown; check passed" --session "$here/sessions/lesson_check.json" --lesson factorised
band='4 points \([1-4] with a band\)'
shot_expect sweep "performer $band linformer $band lsh $band" --session "$here/sessions/sweep.json" --panel sweep
# Session round trip: load, save (atomically), load the saved file again; input, variants and layout survive.
shot roundtrip_a --session "$here/sessions/causal_diff.json" --save-session "$out/roundtrip.json"
for key in '"periodic"' '"tile_cols": 16.0' '"layout"' '"causal": 1.0'; do
  grep -q "$key" "$out/roundtrip.json" || { echo "session round trip: $key missing from $out/roundtrip.json"; exit 1; }
done
shot roundtrip_b --session "$out/roundtrip.json"
# Text input: only when the build has it and the model is present (the probe run says so by its exit status).
if "$app" gui --screenshot "$out/text_probe.png" --frames 2 --session "$here/sessions/text.json" >/dev/null 2>&1; then
  for panel in matrices spectrum input; do shot "text_$panel" --session "$here/sessions/text.json" --panel "$panel"; done
else
  echo "gui smoke: text input unavailable in this build or no model: text screenshots skipped"
fi
# A bad input must produce the banner (exit 3), not a crash or a silent pass.
set +e
"$app" gui --screenshot "$out/bad_input.png" --frames 4 --session "$here/sessions/bad_input.json" 2> "$out/bad_input.err"
rc=$?
set -e
if [ "$rc" -ne 3 ]; then echo "bad input: expected exit 3 (error banner), got $rc"; cat "$out/bad_input.err"; exit 1; fi
grep -q "out of range" "$out/bad_input.err" || { echo "bad input: banner text missing"; cat "$out/bad_input.err"; exit 1; }
echo "bad input: error banner shown as expected: $(cat "$out/bad_input.err")"
rm -rf "$out/exports"
ATTNSCOPE_EXPORT_DIR="$out/exports" "$app" gui --self-test-frames "${ATTNSCOPE_SELF_TEST_FRAMES:-2000}" --seed 7 --width 1024 --height 700
# The self-test exports once through every path (CSV, NPY, window PNG, a panel-sized PNG).
for f in self-test-window.png self-test-corner.png; do "$stats" "$out/exports/$f" 8; done
ls "$out/exports"/*_P_h0.csv "$out/exports"/*_P.npy >/dev/null || { echo "self-test: CSV/NPY exports missing"; ls -la "$out/exports"; exit 1; }
head -c 10 "$out/exports"/*_P.npy | grep -q NUMPY || { echo "self-test: NPY export has no NUMPY header"; exit 1; }
