#!/usr/bin/env bash
# The lessons as a reader sees them, under one Xvfb server (see the ctest gui.lessons):
#   1. every lesson at 1920×1080 opens with its check, and every value the check reports for the screen equals the
#      badge its panel draws; the ceiling lesson's twelve heatmaps are at least 240 px;
#   2. the columns attention-sinks and windows-globals name ([CLS], the sink columns, the four hub keys and their global
#      columns) are visible in the screenshot at three window sizes — and with one cell per pixel
#      (--pixel-reduction nearest) some of them are not, so the check can fail.
# usage: lessons.sh ATTNSCOPE_BINARY LAYOUT_CHECK OUT_DIR LESSONS_DIR
set -euo pipefail
app="$1"; check="$2"; out="$3"; lessons="$4"
mkdir -p "$out"
shot() {  # shot NAME ARGS...: a screenshot with its layout record; the app must exit 0 (no error banner)
  local name="$1"; shift
  rm -f "$out/$name.png" "$out/$name.json"
  "$app" gui --screenshot "$out/$name.png" --layout-json "$out/$name.json" --frames 8 "$@" > "$out/$name.log"
}
text=1
"$app" run --variant full --text "probe" > /dev/null 2>&1 || text=0
for lesson in $("$app" lesson | awk '{print $1}'); do
  if [ "$text" = 0 ] && grep -q '"mode": "text"' "$lessons/$lesson.json"; then
    echo "lessons: $lesson skipped (no text model in this build)"; continue
  fi
  # Some checks time their claims (linear-rnn's decoding time per token), and other processes share this machine:
  # up to two more tries, a few seconds apart, are what a user's "Run the check again" would be. A check that is
  # wrong fails all three.
  for attempt in 1 2 3; do
    shot "$lesson" --lesson "$lesson" --width 1920 --height 1080
    grep -q "lesson $lesson shown; check passed" "$out/$lesson.log" && break
    [ "$attempt" -lt 3 ] || { echo "$lesson: its check did not pass on screen in 3 tries"; cat "$out/$lesson.log"; exit 1; }
    echo "lessons: $lesson's check did not pass on screen (try $attempt of 3; timed claims on a busy machine)"
    sleep 5
  done
  "$check" badges "$out/$lesson.json"
done
[ "$text" = 1 ] && "$check" min-side "$out/the-ceiling.json" 240
nearest_hidden=0
for size in 1920x1080 1600x1000 1280x720; do
  w="${size%x*}"; h="${size#*x}"
  if [ "$text" = 1 ]; then
    shot "sinks_$size" --lesson attention-sinks --width "$w" --height "$h"
    "$check" columns "$out/sinks_$size.json" full sink
  fi
  shot "globals_$size" --lesson windows-globals --width "$w" --height "$h"
  "$check" columns "$out/globals_$size.json" full longformer
  shot "globals_nearest_$size" --lesson windows-globals --width "$w" --height "$h" --pixel-reduction nearest
  if ! "$check" columns "$out/globals_nearest_$size.json" full longformer > "$out/globals_nearest_$size.check"; then
    nearest_hidden=$((nearest_hidden + 1))
    grep "hidden:" "$out/globals_nearest_$size.check" | sed "s/^/nearest $size: /"
  fi
done
[ "$nearest_hidden" -gt 0 ] || { echo "lessons: one cell per pixel hid no named column: the visibility check cannot fail"; exit 1; }
echo "lessons: every screen value equals its badge; named columns visible at every size (one cell per pixel hid some at $nearest_hidden of 3 sizes)"
