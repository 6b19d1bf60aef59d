#!/usr/bin/env python3
"""Compares two `attnscope run --npy` bundles of one input run on two backends (e.g. cpu and cuda).

For every result of the first bundle, the result of the same label in the second must exist and its output O must
match: relative Frobenius error ‖O_b − O_a‖ / ‖O_a‖ at most the tolerance. Prints a Markdown table, one row per
variant, and exits 1 when a variant is missing, has another shape, or differs by more than the tolerance; 2 when a
bundle cannot be read. Standard library only (no numpy): the bundles are float32 C-order .npy files.

usage: gpu_compare_backends.py BUNDLE_A BUNDLE_B [--tolerance 1e-4]
"""
import argparse
import ast
import json
import math
import pathlib
import struct
import sys


def read_npy(path: pathlib.Path):
    """(shape, flat list of floats) of a little-endian float32 C-order .npy file."""
    data = path.read_bytes()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    major = data[6]
    header_len = struct.unpack("<H", data[8:10])[0] if major == 1 else struct.unpack("<I", data[8:12])[0]
    start = 10 if major == 1 else 12
    header = ast.literal_eval(data[start:start + header_len].decode("latin1"))
    if header["descr"] != "<f4" or header["fortran_order"]:
        raise ValueError(f"{path}: expected little-endian float32 in C order, found {header}")
    count = math.prod(header["shape"])
    body = data[start + header_len:]
    return tuple(header["shape"]), struct.unpack(f"<{count}f", body[:4 * count])


def load(bundle: pathlib.Path):
    index = json.loads((bundle / "index.json").read_text())
    return index, {r["label"]: r for r in index["results"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", type=pathlib.Path, help="reference bundle (e.g. the cpu run)")
    ap.add_argument("b", type=pathlib.Path, help="bundle to compare (e.g. the cuda run)")
    ap.add_argument("--tolerance", type=float, default=1e-4, help="largest relative Frobenius error allowed")
    args = ap.parse_args()
    try:
        index_a, results_a = load(args.a)
        index_b, results_b = load(args.b)
    except (OSError, ValueError, KeyError) as e:
        print(f"gpu_compare_backends: cannot read a bundle: {e}", file=sys.stderr)
        return 2
    if index_a["input"] != index_b["input"]:
        print(f"gpu_compare_backends: the bundles hold different inputs: {index_a['input']} vs {index_b['input']}",
              file=sys.stderr)
        return 1
    backends = (next(iter(results_a.values()))["backend"] if results_a else "?",
                next(iter(results_b.values()))["backend"] if results_b else "?")
    print(f"| variant | O shape | ‖O_{backends[1]} − O_{backends[0]}‖ / ‖O_{backends[0]}‖ | within {args.tolerance:g} |")
    print("|---|---|---|---|")
    failures = 0
    for label, ra in results_a.items():
        rb = results_b.get(label)
        if rb is None:
            print(f"| {label} | | missing from {args.b} | no |")
            failures += 1
            continue
        shape_a, oa = read_npy(args.a / ra["O"])
        shape_b, ob = read_npy(args.b / rb["O"])
        if shape_a != shape_b:
            print(f"| {label} | {shape_a} vs {shape_b} | shapes differ | no |")
            failures += 1
            continue
        diff = math.sqrt(sum((y - x) ** 2 for x, y in zip(oa, ob)))
        norm = math.sqrt(sum(x * x for x in oa))
        rel = diff / norm if norm > 0 else diff
        ok = rel <= args.tolerance and math.isfinite(rel)
        failures += not ok
        print(f"| {label} | {'×'.join(map(str, shape_a))} | {rel:.2e} | {'yes' if ok else '**no**'} |")
    print(f"\n{len(results_a) - failures} of {len(results_a)} variants within {args.tolerance:g}.")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
