#!/usr/bin/env python3
"""A file's section index ("// Index: [SECTION] A  [SECTION] B" at its top) must list exactly its "// [SECTION] X"
headings, in order, so the index a reader trusts never names a section that moved away or misses one.
usage: section_index.py REPO_ROOT — exits 1 naming each file whose index and headings differ."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
bad = []
for path in sorted(root.glob("**/*")):
    if path.suffix not in {".cpp", ".h", ".cu", ".cuh"} or any(p.startswith("build") for p in path.parts):
        continue
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    index, headings, in_index = [], [], False
    for line in lines:
        if re.match(r"^//\s*Index:", line) or (in_index and re.match(r"^//\s+\[SECTION\]", line)):
            in_index = True
            index += [s.strip() for s in re.findall(r"\[SECTION\]\s*([^\[]+)", line)]
            continue
        in_index = False
        m = re.match(r"^\s*//\s*\[SECTION\]\s*(.+?)\s*$", line)
        if m:
            headings.append(m.group(1))
    if index and index != headings:
        bad.append(f"{path.relative_to(root)}: index lists {index}, the file's headings are {headings}")
for b in bad:
    print(b)
if bad:
    print("make each file's Index: line list its [SECTION] headings in order (or drop the index)")
    sys.exit(1)
print("every section index lists its file's headings")
