#!/usr/bin/env bash
# Every panel's numbers as a file, headless, checked by content: run --metrics-csv against run --json (every
# instance named, the same means), --heads-csv (layers × heads rows per masked instance), --sinks-csv (a row per
# key, summing to 1), the same from run --session; sweep --csv (a row per value per curve, the same numbers as
# --json), spectrum --csv (σ descending, cumulative share ending at 1), and on text (the tiny test model) the grid
# over every encoder layer and the sinks over every token. Every file is a bare name in the current
# folder (`--json bare.json` once failed where `./bare.json` worked); with a GUI under Xvfb, so is
# `gui --save-session bare.json`.
# usage: exports.sh ATTNSCOPE_BINARY WORK_DIR SESSIONS_DIR [gui]
set -euo pipefail
app="$1"; work="$2"; sessions="$3"; gui="${4:-}"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "exports: $*"; exit 1; }

input=(--data hubs --n 48 --heads 3 --dim 16 --seed 2)
"$app" run --variant longformer:window=8,sink:window=8:sinks=2,svd:rank=4 "${input[@]}" --json bare.json \
  --metrics-csv metrics.csv --heads-csv heads.csv --sinks-csv sinks.csv > table.txt 2> stderr.txt \
  || fail "run with bare file names: $(cat stderr.txt)"
"$app" sweep --variant svd,linformer --param budget=4:16:x2 "${input[@]}" --seeds 2 --csv sweep.csv --json sweep.json \
  > /dev/null || fail "sweep --csv"
"$app" spectrum --variant svd:rank=4 "${input[@]}" --spectrum-head -1 --csv spectrum.csv --json spectrum.json > /dev/null \
  || fail "spectrum --csv"
"$app" run --session "$sessions/sweep_instances.json" --metrics-csv session_metrics.csv --heads-csv session_heads.csv \
  > /dev/null 2>&1 && fail "--heads-csv without a masked instance must be refused"
"$app" run --session "$sessions/sweep_instances.json" --metrics-csv session_metrics.csv > /dev/null 2>&1 \
  || fail "run --session --metrics-csv"
"$app" run --session "$sessions/views_synthetic.json" --heads-csv session_heads.csv > /dev/null 2>&1 \
  || fail "run --session --heads-csv"

# Text through the tiny test model (2 layers × 2 heads): the grid covers every encoder layer, the sinks every token.
tiny="$sessions/../../golden/tiny_bert"
"$app" run --variant longformer:window=2,sink:window=2:sinks=1,svd:rank=2 --text "the cat sat, then it slept." \
  --model "$tiny" --heads-csv text_heads.csv --sinks-csv text_sinks.csv > /dev/null 2>&1 || fail "run --text --heads-csv"
"$app" spectrum --text "the cat sat, then it slept." --model "$tiny" --layers-csv text_layers.csv > /dev/null 2>&1 \
  || fail "spectrum --text --layers-csv"
if "$app" spectrum --n 16 --layers-csv x.csv > /dev/null 2> layers.err; then fail "--layers-csv on synthetic input succeeded"; fi
grep -q "needs text input" layers.err || fail "--layers-csv on synthetic input: $(cat layers.err)"

python3 - <<'PY' || fail "file contents"
import csv, json
rows = lambda path: list(csv.DictReader(open(path, newline="")))

run = json.load(open("bare.json"))
metrics = rows("metrics.csv")
H = run["input"]["heads"]
assert len(metrics) == len(run["results"]) * (1 + H), len(metrics)
for k, result in enumerate(run["results"]):
    mean = metrics[k * (1 + H)]
    assert mean["variant"] == result["variant"] and mean["heads"] == "mean over heads", mean
    assert [r["heads"] for r in metrics[k * (1 + H) + 1:(k + 1) * (1 + H)]] == [f"head {h}" for h in range(H)]
    for key in ("rel_err_out", "mass_recall"):
        want = result["metrics"].get(key)
        got = mean[key]
        assert (want is None and got == "") or abs(float(got) - want) < 1e-6, (key, got, want)
assert {r["instance"] for r in metrics} == {"Longformer w = 8", "Sink w = 8, s = 2", "SVD r = 4"}, {r["instance"] for r in metrics}

heads = rows("heads.csv")  # svd has no mask: the grid is the two masked instances', one layer (synthetic)
assert len(heads) == 2 * 1 * H, len(heads)
assert [(r["layer"], r["head"]) for r in heads[:H]] == [("0", str(h)) for h in range(H)]
sink_mean = sum(float(r["mass_recall"]) for r in heads if r["variant"] == "sink") / H
assert abs(sink_mean - run["results"][1]["metrics"]["mass_recall"]) < 1e-6, sink_mean

sinks = rows("sinks.csv")
assert len(sinks) == run["input"]["n"], len(sinks)
assert abs(sum(float(r["received"]) for r in sinks) - 1) < 1e-5
assert all(abs(float(r["uniform"]) - 1 / len(sinks)) < 1e-9 for r in sinks)

sweep, sweep_json = rows("sweep.csv"), json.load(open("sweep.json"))
assert list(sweep[0].keys()) == ["variant", "instance", "param", "value", "metric", "mean", "min", "max", "seeds"]
values = ["4", "8", "16"]
assert len(sweep) == 2 * len(values), len(sweep)
for c, curve in enumerate(sweep_json["curves"]):
    mine = sweep[c * 3:(c + 1) * 3]
    assert [r["value"] for r in mine] == values and {r["instance"] for r in mine} == {curve["instance"]}, mine
    for r, p in zip(mine, curve["points"]):
        assert abs(float(r["mean"]) - p["mean"]) < 1e-6 and r["metric"] == "rel_err_out", (r, p)
assert [r["param"] for r in sweep[::3]] == ["rank", "k"], [r["param"] for r in sweep]

spectrum = rows("spectrum.csv")
for instance in ("P", "SVD r = 4"):
    for h in range(H):
        one = [r for r in spectrum if r["instance"] == instance and r["head"] == str(h)]
        sigma = [float(r["sigma"]) for r in one]
        assert len(one) == 48 and sigma == sorted(sigma, reverse=True), (instance, h, sigma[:4])
        assert [int(r["k"]) for r in one] == list(range(1, 49))
        assert abs(float(one[-1]["cumulative"]) - 1) < 1e-6, one[-1]

session = rows("session_metrics.csv")
names = [r["instance"] for r in session if r["heads"] == "mean over heads"]
assert names == ["Performer m = 111, orthogonal", "Performer m = 111, orthogonal off", "SVD r = 32",
                 "Linformer k = 64, projection pool"], names
assert len(rows("session_heads.csv")) > 0

text_heads, text_sinks = rows("text_heads.csv"), rows("text_sinks.csv")
assert len(text_heads) == 2 * 2 * 2, len(text_heads)  # masked instances × layers × heads
assert {r["layer"] for r in text_heads} == {"0", "1"} and all(r["mass_recall"] for r in text_heads)
assert text_sinks[0]["token"] == "[CLS]" and text_sinks[0]["kind"] == "special", text_sinks[0]
assert text_sinks[-1]["token"] == "[SEP]" and any(r["kind"] == "punctuation" for r in text_sinks)
assert abs(sum(float(r["received"]) for r in text_sinks) - 1) < 1e-5

layers = rows("text_layers.csv")  # every layer × head × rank k of the tiny model, each head's share rising to 1
n = len(text_sinks)
assert len(layers) == 2 * 2 * n, (len(layers), n)
for l in ("0", "1"):
    for h in ("0", "1"):
        share = [float(r["cumulative"]) for r in layers if r["layer"] == l and r["head"] == h]
        assert share == sorted(share) and abs(share[-1] - 1) < 1e-6 and share[0] < 1, (l, h, share[:3])
PY

if [ "$gui" = gui ]; then
  # No leak report at exit under ASan: Mesa's driver is unloaded before LeakSanitizer runs, so its allocations show
  # as leaks from an unknown module (scripts/gui-soak.sh says the same).
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" LIBGL_ALWAYS_SOFTWARE=1 "$app" gui --screenshot shot.png --frames 2 --save-session bare_session.json > gui.txt 2>&1 \
    || fail "gui --save-session with a bare name: $(cat gui.txt)"
  grep -q '"variants"' bare_session.json || fail "gui --save-session bare_session.json wrote: $(head -c 200 bare_session.json)"
fi
echo "exports: all checks passed"
