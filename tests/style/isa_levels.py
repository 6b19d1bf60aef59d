#!/usr/bin/env python3
"""Compiles every ISA-dependent translation unit at each x86-64 level, warnings as errors.

A build compiles only the side of each ISA branch that its -march takes, so an AVX-512 machine never sees a warning on
the AVX2 or portable side (an AVX2-only machine once met `thread_ns() defined but not used` that way). This check
finds the translation units of the build (compile_commands.json) that depend on core/cpu_isa.h — they include it
directly or through project headers — and checks each with `clang++-14 -fsyntax-only` at -march=x86-64-v2 (no vector
ISA), x86-64-v3 (AVX2 + FMA) and x86-64-v4 (AVX-512) with -Wall -Wextra -Wpedantic -Werror. clang, not GCC: its
front end reports an unused function without generating code, so a level costs seconds per file.
usage: isa_levels.py REPO_ROOT BUILD_DIR, or --self-test REPO_ROOT BUILD_DIR (the fixture with a helper used on one
side only must fail at v2 and v3 and pass at v4). Exits 1 listing every failing file and level.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

LEVELS = ("x86-64-v2", "x86-64-v3", "x86-64-v4")
ISA_HEADER = "core/cpu_isa.h"
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]


def compiler() -> str:
    for name in ("clang++-14", "clang++"):
        if shutil.which(name):
            return name
    raise SystemExit("isa_levels: clang++-14 is not installed (scripts/setup.sh installs it)")


def depends_on_isa(root: Path, source: Path, memo: dict) -> bool:
    """True when source includes core/cpu_isa.h, directly or through quoted project includes (paths from the root)."""
    key = source.as_posix()
    if key in memo:
        return memo[key]
    memo[key] = False  # a cycle cannot add anything
    try:
        text = source.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    found = False
    for target in INCLUDE.findall(text):
        if target == ISA_HEADER:
            found = True
            break
        path = root / target
        if path.is_file() and depends_on_isa(root, path, memo):
            found = True
            break
    memo[key] = found
    return found


def flags_of(entry: dict) -> list[str]:
    """The include folders, definitions and language standard of one compile_commands.json entry (not its precompiled
    header: each unit must compile from its own includes)."""
    args = entry.get("arguments") or shlex.split(entry["command"])
    out, i = [], 1
    while i < len(args):
        a = args[i]
        if a in ("-I", "-isystem", "-D") and i + 1 < len(args):
            out += [a, args[i + 1]]
            i += 2
            continue
        if a.startswith(("-I", "-D", "-std=")) or (a.startswith("-isystem") and len(a) > len("-isystem")):
            out.append(a)
        elif a == "-fopenmp":
            out.append(a)
        i += 1
    return out


def check(cxx: str, source: str, flags: list[str], level: str, directory: str) -> tuple[str, str, str]:
    cmd = [cxx, "-fsyntax-only", f"-march={level}", *WARNINGS, *flags, source]
    run = subprocess.run(cmd, cwd=directory, capture_output=True, text=True)
    return source, level, "" if run.returncode == 0 else (run.stderr.strip() or f"exit {run.returncode}")


def units(root: Path, build: Path) -> list[tuple[str, list[str], str]]:
    """(source, flags, directory) of every C++ unit of the build that depends on core/cpu_isa.h."""
    db = json.loads((build / "compile_commands.json").read_text())
    memo, seen, out = {}, set(), []
    for entry in db:
        source = Path(entry["file"])
        if source.suffix != ".cpp" or source in seen:
            continue
        try:
            source.resolve().relative_to(root.resolve())
        except ValueError:
            continue  # third-party code
        seen.add(source)
        if depends_on_isa(root, source, memo):
            out.append((str(source), flags_of(entry), entry.get("directory", str(build))))
    return out


def run_checks(jobs: list[tuple[str, list[str], str, str]]) -> list[tuple[str, str, str]]:
    cxx = compiler()
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        return list(pool.map(lambda j: check(cxx, j[0], j[1], j[3], j[2]), jobs))


def self_test(root: Path, build: Path) -> int:
    """The fixture uses a helper only under ATTNSCOPE_SIMD_AVX512: it must fail below v4 and pass at v4."""
    root = root.resolve()
    fixture = str(root / "tests/style/isa_fixtures/helper_on_one_side.cpp")
    results = run_checks([(fixture, ["-std=c++20", "-I", str(root)], str(build), level) for level in LEVELS])
    want = {"x86-64-v2": False, "x86-64-v3": False, "x86-64-v4": True}
    status = 0
    for _, level, error in results:
        ok = (not error) if want[level] else "unused function 'thread_ns'" in error
        first = error.splitlines()[0] if error else "compiles"
        print(f"{'ok  ' if ok else 'FAIL'} {level}: {first}")
        status |= 0 if ok else 1
    return status


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--self-test":
        return self_test(Path(sys.argv[2]), Path(sys.argv[3]))
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    root, build = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    found = units(root, build)
    if not found:
        print(f"isa_levels: no unit of {build}/compile_commands.json includes {ISA_HEADER}: is it the right build?")
        return 1
    results = run_checks([(s, f, d, level) for s, f, d in found for level in LEVELS])
    failed = [(s, level, e) for s, level, e in results if e]
    for s, level, e in failed:
        print(f"{s} at -march={level}:\n{e}\n")
    print(f"{len(found)} ISA-dependent units × {len(LEVELS)} levels ({', '.join(LEVELS)}): "
          f"{len(results) - len(failed)} compile warning-free, {len(failed)} fail")
    for s, _, _ in found:
        print(f"  {os.path.relpath(s, root)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
