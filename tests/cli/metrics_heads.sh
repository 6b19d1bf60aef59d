#!/usr/bin/env bash
# Metrics per head through the CLI, against numpy computing the definitions from the q, k, v,
# O and P_eff that `run --npy` wrote: run --json's per-head values and their means over heads (rel_err_out,
# rel_err_attn, mass_recall, keys_for_90 and row entropy of P̃ and of the exact P), the table's honest header and
# its keys_for_90 / keys_for_90_exact columns, and `figure --view-head 3` printing head 3's own numbers.
# usage: metrics_heads.sh ATTNSCOPE_BINARY WORK_DIR   (exit 77: numpy missing, the test is skipped)
set -euo pipefail
app="$1"; work="$2"
python3 -c "import numpy" 2>/dev/null || { echo "metrics_heads: numpy is not installed: skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
input=(--data hubs --n 64 --heads 4 --dim 16 --seed 5)
"$app" run --variant longformer:window=8,sink:window=8:sinks=2 "${input[@]}" --npy npy --json run.json > table.txt
"$app" figure --variant longformer:window=8 "${input[@]}" --view weights --view-head 3 --out fig.svg > /dev/null
python3 - <<'PY'
import json, re, sys
import numpy as np

q, k, v = (np.load(f"npy/{name}.npy").astype(np.float64) for name in ("q", "k", "v"))
H, n, d = q.shape
run = json.load(open("run.json"))
index = json.load(open("npy/index.json"))
failures = []

def check(what, got, want, tol):
    if got is None or abs(got - want) > tol:
        failures.append(f"{what}: run says {got}, numpy {want:.6g}")

def exact(causal):
    s = np.einsum("hid,hjd->hij", q, k) / np.sqrt(d)
    if causal:
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    s -= s.max(axis=2, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=2, keepdims=True)
    return p, p @ v

def keys_for_90(p):  # mean over rows of the fewest keys holding 90% of the row, per head
    top = -np.sort(-p, axis=2)
    cum = np.cumsum(top, axis=2)
    return ((cum < 0.9 * cum[:, :, -1:]).sum(axis=2) + 1).mean(axis=1)

def entropy(p):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(p > 0, p * np.log(p), 0).sum(axis=2).mean(axis=1)

for r, files in zip(run["results"], index["results"]):
    name, m = r["variant"], r["metrics"]
    per = m["per_head"]
    P, O_full = exact(r["causal"])
    O = np.load(f"npy/{files['O']}").astype(np.float64)
    Pt = np.load(f"npy/{files['P_eff']}").astype(np.float64)
    out = np.linalg.norm(O - O_full, axis=(1, 2)) / np.linalg.norm(O_full, axis=(1, 2))
    attn = np.linalg.norm(Pt - P, axis=(1, 2)) / np.linalg.norm(P, axis=(1, 2))
    mass = np.where(Pt > 0, P, 0).sum(axis=2).mean(axis=1)  # P̃ of a renormalised mask is > 0 exactly where allowed
    values = {"rel_err_out": (out, 1e-4), "rel_err_attn": (attn, 1e-4), "mass_recall": (mass, 1e-5),
              "keys_for_90": (keys_for_90(Pt), 0.1), "keys_for_90_exact": (keys_for_90(P), 0.1),
              "row_entropy_nats": (entropy(Pt), 1e-4), "row_entropy_exact_nats": (entropy(P), 1e-4)}
    for metric, (want, tol) in values.items():
        if len(per.get(metric, [])) != H:
            failures.append(f"{name}: metrics.per_head.{metric} is {per.get(metric)}, not {H} values")
            continue
        for h in range(H):
            check(f"{name} {metric} head {h}", per[metric][h], want[h], tol * max(1, abs(want[h])))
        check(f"{name} {metric} (mean over heads)", m[metric], want.mean(), tol * max(1, abs(want.mean())))
    pooled = np.linalg.norm(O - O_full) / np.linalg.norm(O_full)
    print(f"{name}: rel_err_out per head {np.round(out, 4)}, mean {out.mean():.4f} (pooled {pooled:.4f}); "
          f"keys_for_90 P̃ {keys_for_90(Pt).mean():.2f}, exact P {keys_for_90(P).mean():.2f}")
    if name == "longformer":
        longformer = (out, mass)

# figure --view-head 3: head 3's own numbers, named as head 3's.
svg = open("fig.svg").read()
out, mass = longformer
for label, own, mean, pattern in (("output error", out[3], out.mean(), r"head 3: output error vs exact softmax: ([0-9.e+-]+)"),
                                  ("mass kept", mass[3], mass.mean(), r"head 3: exact softmax mass kept: ([0-9.]+)")):
    found = re.search(pattern, svg)
    if not found:
        failures.append(f"figure --view-head 3 has no line '{pattern}'")
        continue
    if abs(own - mean) < 0.01 * abs(own):
        failures.append(f"{label}: head 3 ({own:.4g}) is too close to the mean ({mean:.4g}) for this test to tell them apart")
    shown = float(found.group(1))
    if abs(shown - own) > 0.006 * abs(own):
        failures.append(f"figure --view-head 3 {label}: shows {shown}, head 3's own is {own:.4g} (mean over heads {mean:.4g})")

table = open("table.txt").read()
if "mean over the 4 heads" not in table:
    failures.append("the run table does not say its numbers are means over the 4 heads")
for column in ("keys_for_90", "keys_for_90_exact", "row_entropy", "row_entropy_exact"):
    if not re.search(rf"\s{column}\s", table.splitlines()[2]):
        failures.append(f"the run table has no column {column}: {table.splitlines()[2]}")

if failures:
    print("metrics_heads: FAILED\n  " + "\n  ".join(failures))
    sys.exit(1)
print("metrics_heads: per-head values, their means, the table and figure --view-head 3 match numpy")
PY
