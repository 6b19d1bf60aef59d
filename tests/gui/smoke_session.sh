#!/usr/bin/env bash
# Runs inside one X server (see smoke.sh):
#   1. every panel in turn (--panel) with synthetic input, and with text input when the build has it; the panels
#      are the binary's own table (gui --list-panels), so a new panel is shot here without editing this file;
#   2. sessions covering causal + difference view, large n with the pooled view, and a zoomed full-resolution detail;
#      lessons (--lesson, a check run in the Lesson window) and a finished metric sweep in the Sweep panel;
#   3. a bad input must show the error banner (exit 3) without crashing; text longer than 512 tokens shows the
#      truncation message (exit 3), its truncated session does not; no model: install hint + synthetic fallback;
#      loaded tensors (.npy written here) show, round-trip through the session, and a missing file is a sentence;
#   4. a random-interaction run (--self-test-frames) must finish with every invariant held, and each invariant
#      must stop a run whose bound is set so that it cannot hold.
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
# gui --list-panels: one tab-separated line per panel (alias, window title, "computes" or "-", session keys).
panel_list="$("$app" gui --list-panels)"
mapfile -t panels < <(cut -f1 <<< "$panel_list")
mapfile -t computing < <(awk -F'\t' '$3 == "computes" {print $1}' <<< "$panel_list")
if [ "${#panels[@]}" -lt 2 ] || [ "${#computing[@]}" -lt 1 ]; then
  echo "gui --list-panels: expected panels, and some that compute:"; echo "$panel_list"; exit 1
fi
for panel in "${panels[@]}"; do shot "synthetic_$panel" --panel "$panel"; done
# The analysis views on a local scenario: every panel whose work a screenshot waits for (the error–cost map with a
# swept budget, mass kept per head, the sink profile, …) and the block tiles over the mask in Matrices.
for panel in "${computing[@]}" matrices; do shot "views_$panel" --session "$here/sessions/views_synthetic.json" --panel "$panel"; done
shot views_rt --session "$here/sessions/views_synthetic.json" --panel errcost --save-session "$out/views_rt.json"
for key in '"blocks": true' '"param": "budget"' '"y": "mass_loss"' '"x": "flops"' '"sinks"'; do
  grep -q "$key" "$out/views_rt.json" || { echo "views session: $key missing from $out/views_rt.json"; exit 1; }
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
# Two instances of one variant are two curves, and svd's rank, linformer's k and performer's features share one budget axis.
shot_expect sweep_instances "vs budget: performer $band performer $band svd $band linformer $band" \
  --session "$here/sessions/sweep_instances.json" --panel sweep
# Session round trip: load, save (atomically), load the saved file again; input, variants and layout survive.
shot roundtrip_a --session "$here/sessions/causal_diff.json" --save-session "$out/roundtrip.json"
for key in '"periodic"' '"tile_cols": 16.0' '"layout"' '"causal": true'; do
  grep -q "$key" "$out/roundtrip.json" || { echo "session round trip: $key missing from $out/roundtrip.json"; exit 1; }
done
# The session keys each panel's row lists are what the saved file holds, and every key of the file has an owner.
"$app" gui --list-panels --json > "$out/panels.json"
"${CMAKE_COMMAND:-cmake}" -DLIST="$out/panels.json" -DSESSION="$out/roundtrip.json" -P "$here/session_keys.cmake"
shot roundtrip_b --session "$out/roundtrip.json"
# Text input: only when the build has it and the model is present (a CLI run on text says so by its exit status).
# The Spectrum shot shows the layers × heads heatmap of the text (computed after the views).
if "$app" run --variant full --text "probe" >/dev/null 2>&1; then
  for panel in matrices spectrum input; do shot "text_$panel" --session "$here/sessions/text.json" --panel "$panel"; done
  for panel in "${computing[@]}" matrices; do shot "text_views_$panel" --session "$here/sessions/views_text.json" --panel "$panel"; done
  # Score and mask modifiers (ALiBi, a document mask by sentences, a soft-cap) run and survive a session round trip.
  shot text_modifiers --session "$here/sessions/modifiers_text.json" --panel errcost --save-session "$out/modifiers_rt.json"
  for key in '"score_mod": "alibi"' '"mask_mod": "document"' '"score_mod": "softcap"'; do
    grep -q "$key" "$out/modifiers_rt.json" || { echo "modifiers session: $key missing from $out/modifiers_rt.json"; exit 1; }
  done
  # Longer than the model's 512 positions: the Input panel says so and offers truncation (the banner makes it exit 3).
  long_text="$(for k in $(seq 1 300); do printf 'attention is sparse. '; done)"
  for truncate in false true; do
    cat > "$out/long_text_$truncate.json" <<JSON
{"version": 1, "input": {"mode": "text", "text": "$long_text", "layer": 0, "truncate": $truncate},
 "variants": [{"id": "flash", "params": {}}], "view": {"spectrum": false}}
JSON
  done
  set +e
  "$app" gui --screenshot "$out/text_too_long.png" --frames 8 --panel input --session "$out/long_text_false.json" 2> "$out/text_too_long.err"
  rc=$?
  set -e
  [ "$rc" -eq 3 ] || { echo "too long text: expected exit 3 (banner), got $rc"; cat "$out/text_too_long.err"; exit 1; }
  grep -q "tokens but the model reads at most 512" "$out/text_too_long.err" || { echo "too long text: message missing"; cat "$out/text_too_long.err"; exit 1; }
  "$stats" "$out/text_too_long.png" 64
  shot text_truncated --session "$out/long_text_true.json" --panel input
else
  echo "gui smoke: text input unavailable in this build or no model: text screenshots skipped"
fi
# Without the model the Input panel says how to install it and the views fall back to synthetic data (exit 0).
ATTNSCOPE_MODEL_DIR=/nonexistent shot no_model --session "$here/sessions/text.json" --panel input
# Loaded tensors: q/k/v.npy (2, 64, 16) float32 and tokens.txt written here (perl is part of every Debian base).
mkdir -p "$out/tensors"
for name in q k v; do
  perl -e 'my ($seed) = @ARGV; my $h = "{\x27descr\x27: \x27<f4\x27, \x27fortran_order\x27: False, \x27shape\x27: (2, 64, 16), }";
           $h .= " " while (10 + length($h) + 1) % 64; $h .= "\n";
           print "\x93NUMPY\x01\x00", pack("v", length $h), $h;
           print pack("f<*", map { sin($_ * 0.37 + $seed) * 2 } 0 .. 2 * 64 * 16 - 1);' "$(printf '%d' "'$name")" \
    > "$out/tensors/$name.npy"
done
for k in $(seq 0 63); do echo "tok$k"; done > "$out/tensors/tokens.txt"
cat > "$out/tensors.json" <<JSON
{"version": 1, "input": {"mode": "tensors", "tensors_path": "$out/tensors"},
 "variants": [{"id": "full", "params": {}}, {"id": "longformer", "params": {}}], "view": {"spectrum": true}}
JSON
for panel in input matrices; do shot "tensors_$panel" --session "$out/tensors.json" --panel "$panel"; done
grep -q '"tensors_path"' "$out/roundtrip.json" || { echo "session: tensors_path not saved"; exit 1; }
"$app" gui --screenshot "$out/tensors_rt.png" --frames 4 --session "$out/tensors.json" --save-session "$out/tensors_rt.json" >/dev/null
grep -q "\"tensors_path\": \"$out/tensors\"" "$out/tensors_rt.json" || { echo "session: tensors path not restored"; exit 1; }
# A missing tensor file: the panel and the banner say so in words (exit 3), no crash.
sed "s#$out/tensors#$out/no-such.safetensors#" "$out/tensors.json" > "$out/tensors_missing.json"
set +e
"$app" gui --screenshot "$out/tensors_missing.png" --frames 4 --panel input --session "$out/tensors_missing.json" 2> "$out/tensors_missing.err"
rc=$?
set -e
[ "$rc" -eq 3 ] && grep -q "does not exist" "$out/tensors_missing.err" || { echo "missing tensors: expected exit 3 and 'does not exist', got $rc"; cat "$out/tensors_missing.err"; exit 1; }
# A bad input must produce the banner (exit 3), not a crash or a silent pass.
set +e
"$app" gui --screenshot "$out/bad_input.png" --frames 4 --session "$here/sessions/bad_input.json" 2> "$out/bad_input.err"
rc=$?
set -e
if [ "$rc" -ne 3 ]; then echo "bad input: expected exit 3 (error banner), got $rc"; cat "$out/bad_input.err"; exit 1; fi
grep -q "out of range" "$out/bad_input.err" || { echo "bad input: banner text missing"; cat "$out/bad_input.err"; exit 1; }
echo "bad input: error banner shown as expected: $(cat "$out/bad_input.err")"
# A session file that does not parse is kept beside itself (.bad) before anything could save over it.
# The classroom (issue 18): presentation mode at 1280×720 with a larger font, from a session naming only a lesson
# (its setup must apply), and File → Export figure writing a PNG with content and an SVG naming every instance.
rm -rf "$out/classroom"
mkdir -p "$out/classroom"
printf '{"version": 1, "lesson": {"id": "windows-globals"}, "view": {"presentation": true, "font_scale": 1.4, "export_dir": "%s"}}' \
  "$out/classroom" > "$out/classroom.json"
shot_expect presentation "lesson windows-globals shown" --session "$out/classroom.json" --width 1280 --height 720 \
  --export-figure light --save-session "$out/classroom_rt.json"
"$stats" "$out/classroom/matrices-figure-light.png" 64
for title in "Full softmax" "Longformer w = 64" "BigBird b = 16, r = 3" "allowed because:"; do
  grep -q "$title" "$out/classroom/matrices-figure-light.svg" || { echo "figure SVG: '$title' missing"; exit 1; }
done
# File → Export figure of this panel, for every panel the table says exports one: the figure of what the panel
# shows (the input's title, its instances, what is drawn), PNG and SVG from one canvas (tests/cli/figure_views.py).
mapfile -t figure_panels < <(awk -F'\t' '$5 == "figure" {print $1}' <<< "$panel_list")
[ "${#figure_panels[@]}" -ge 8 ] || { echo "--list-panels names ${#figure_panels[@]} panels with a figure"; exit 1; }
rm -rf "$out/panel_figures" && mkdir -p "$out/panel_figures"
python3 - "$here/sessions/sweep_instances.json" "$out/panel_figures" > "$out/panel_figures.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))  # its sweep runs on opening; lsh for the buckets, longformer and sink for the masks
s["variants"] = [{"id": "lsh", "params": {}}, {"id": "longformer", "params": {}}, {"id": "sink", "params": {}},
                 {"id": "svd", "params": {"rank": 8}}]
s["input"] = {"mode": "synthetic", "scenario": "clustered", "n": 64, "heads": 2, "dim": 16}
s["view"] = {"spectrum": True, "export_dir": sys.argv[2]}
s["performance"] = {"n_min_log2": 6, "n_max_log2": 7, "heads": 1, "dim": 16, "runs": 2, "budget_s": 2, "references": False}
print(json.dumps(s))
PY
declare -A shows=([matrices]="Longformer" [lsh]="bucket order" [spectrum]="Singular values σᵢ" [sweep]="against budget"
                  [errcost]="Error against cost" [heads]="mass kept" [performance]="Time against n"
                  [sinks]="Attention each key receives")
for p in "${figure_panels[@]}"; do
  case "$p" in perplexity|streaming) continue ;; esac  # a decoder's panels: below, on the tiny GGUF model
  shot_expect "figure_$p" "saved .*$p-figure-light.png" --session "$out/panel_figures.json" --panel "$p" \
    --export-figure light
  title="synthetic:clustered, n = 64"
  [ "$p" = performance ] && title="Benchmark: gaussian input, H = 1, d = 16"
  python3 "$here/../cli/figure_views.py" "$out/panel_figures/$p-figure-light.svg" "$stats" "$out/panel_figures/$p-figure-light.png" \
    --scale 1.5 "$title" ${shows[$p]:+"${shows[$p]}"} || { echo "figure of panel $p: content"; exit 1; }
done
# The decoder's panels (Perplexity, Streaming) on the tests' tiny llama GGUF: 30 tokens, windows of 4 and 8.
python3 - "$out/panel_figures.json" "$here/../golden/tiny_llama/tiny-llama-mixed.gguf" > "$out/decoder_figures.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["input"] = {"mode": "text", "model_dir": sys.argv[2], "text": " ".join(["ab", "cd", "ef", "gh"] * 3)}  # 30 of its 64 tokens
s["variants"] = [{"id": "sink", "params": {"window": 4, "sinks": 2}}, {"id": "full", "params": {"causal": 1}}]
s["streaming"] = {"windows": "4,8", "sinks": 2, "recompute_samples": 2}
s.pop("sweep", None)
print(json.dumps(s))
PY
declare -A decoder_shows=([perplexity]="Next-token loss with the attention of" [streaming]="perplexity against the cache's window")
for p in perplexity streaming; do
  shot_expect "figure_$p" "saved .*$p-figure-light.png" --session "$out/decoder_figures.json" --panel "$p" --export-figure light
  python3 "$here/../cli/figure_views.py" "$out/panel_figures/$p-figure-light.svg" "$stats" "$out/panel_figures/$p-figure-light.png" \
    --scale 1.5 "tokens" "${decoder_shows[$p]}" || { echo "figure of panel $p: content"; exit 1; }
done
for key in '"presentation": true' '"font_scale": 1.4' '"id": "longformer"'; do  # the lesson's setup applied, the room's view kept
  grep -q "$key" "$out/classroom_rt.json" || { echo "presentation session: $key missing from $out/classroom_rt.json"; exit 1; }
done
rm -f "$out/half_written.json"*
printf '{"version": 1, "input": {"n": 12' > "$out/half_written.json"
set +e
"$app" gui --screenshot "$out/half_written.png" --frames 2 --session "$out/half_written.json" 2> "$out/half_written.err"
rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "unreadable session: expected exit 2, got $rc"; cat "$out/half_written.err"; exit 1; }
grep -q "kept as half_written.json.bad" "$out/half_written.err" || { echo "unreadable session: no word of the kept copy"; cat "$out/half_written.err"; exit 1; }
cmp -s "$out/half_written.json" "$out/half_written.json.bad" || { echo "unreadable session: the .bad copy differs"; exit 1; }
echo "unreadable session: $(cat "$out/half_written.err")"
rm -rf "$out/exports"
ATTNSCOPE_EXPORT_DIR="$out/exports" "$app" gui --self-test-frames "${ATTNSCOPE_SELF_TEST_FRAMES:-2000}" --seed 7 --width 1024 --height 700
# The self-test exports once through every path (CSV, NPY, window PNG, a panel-sized PNG).
for f in self-test-window.png self-test-corner.png; do "$stats" "$out/exports/$f" 8; done
ls "$out/exports"/*-head0.csv "$out/exports"/*.npy >/dev/null || { echo "self-test: CSV/NPY exports missing"; ls -la "$out/exports"; exit 1; }
for f in "$out/exports"/*.npy; do head -c 10 "$f" | grep -q NUMPY || { echo "self-test: $f has no NUMPY header"; exit 1; }; done
# The self-test's invariants can fail: with a bound no run meets, each must stop the run with exit 4 and say which.
self_test_must_break() {  # self_test_must_break WORDS ENV=VALUE
  set +e
  env "$2" ATTNSCOPE_EXPORT_DIR="$out/exports" "$app" gui --self-test-frames 400 --seed 7 --width 1024 --height 700 \
    >/dev/null 2> "$out/broken.err"
  local rc=$?
  set -e
  [ "$rc" -eq 4 ] && grep -q "invariant broken.*$1" "$out/broken.err" || {
    echo "self-test with $2: expected exit 4 and '$1', got $rc"; cat "$out/broken.err"; exit 1; }
  echo "self-test with $2: $(cat "$out/broken.err")"
}
self_test_must_break "resident set" ATTNSCOPE_SELF_TEST_MAX_RSS_MIB=1
self_test_must_break "wedged" ATTNSCOPE_SELF_TEST_WEDGE_S=0
self_test_must_break "error banner without a cause: .*injected fault" ATTNSCOPE_SELF_TEST_INJECT_FALSE_ERROR=1
self_test_must_break "partial redraw differs from a full redraw" ATTNSCOPE_SELF_TEST_BREAK_REDRAW=1
self_test_must_break "window shows .* pixels other than the frame drawn" ATTNSCOPE_SELF_TEST_BREAK_PRESENT=1
self_test_must_break "host-built reduction pyramid differs from the GPU-built one" ATTNSCOPE_SELF_TEST_BREAK_PYRAMID=1
