#!/usr/bin/env python3
"""Every ISA-dependent branch has its counterparts, so no build compiles only one side of it.

The builds differ by -march (native on AVX-512 and on AVX2-only CPUs, x86-64-v3 in CI's sanitizer build, v2 in the
fuzz build), and a branch only one of them takes goes unchecked on the others. Rules, over app/, core/, bench/, tests/:
  1. Only core/cpu_isa.h reads the compiler's ISA macros (__AVX512F__, __AVX2__, __FMA__, __SSE4_1__, …); every
     other file branches on its ATTNSCOPE_SIMD / ATTNSCOPE_SIMD_AVX512 / ATTNSCOPE_SIMD_AVX2.
  2. A conditional chain (#if … #elif … #else … #endif) that tests one ISA names every ISA (ATTNSCOPE_SIMD_AVX512 and
     ATTNSCOPE_SIMD_AVX2) and ends in #else (the build with neither).
  3. A chain that tests ATTNSCOPE_SIMD (any vector ISA) has an #else: the other side, even if it is only a comment
     that says why a build without a vector ISA needs nothing there.
tests/style/isa_levels.py compiles the same files at each -march level, which catches what text cannot (a helper
used on one side only). usage: isa_branches.py REPO_ROOT, or --self-test REPO_ROOT (the rules must reject the broken
fixtures of tests/style/isa_fixtures and accept the good one). Exits 1 listing every violation.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

SOURCE_DIRS = ("app", "core", "bench", "tests")
SUFFIXES = {".h", ".cpp", ".cu", ".cuh"}
ISA_HOME = "core/cpu_isa.h"
# The compiler's own ISA feature macros (GCC and clang spell them alike).
COMPILER_ISA = re.compile(r"\b__(AVX\w*|SSE\w*|FMA\w*|F16C|AMX\w*|BMI\w*|AES|PCLMUL|POPCNT)__\b")
ONE_ISA = re.compile(r"\bATTNSCOPE_SIMD_(AVX512|AVX2)\b")
ANY_ISA = re.compile(r"\bATTNSCOPE_SIMD\b")
DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
ALL_ISAS = {"AVX512", "AVX2"}


class Chain:
    """One #if … #endif chain: the conditions of its #if and #elif lines, and whether it has an #else."""

    def __init__(self, line: int, condition: str):
        self.line = line
        self.conditions = [condition]
        self.has_else = False


def chains(text: str) -> list[Chain]:
    """Every conditional chain of a file, nested ones included, in order of their #if."""
    out, stack = [], []
    for number, line in enumerate(text.splitlines(), 1):
        m = DIRECTIVE.match(line)
        if not m:
            continue
        kind, rest = m.group(1), m.group(2)
        if kind in ("if", "ifdef", "ifndef"):
            stack.append(Chain(number, rest))
            out.append(stack[-1])
        elif kind == "elif" and stack:
            stack[-1].conditions.append(rest)
        elif kind == "else" and stack:
            stack[-1].has_else = True
        elif kind == "endif" and stack:
            stack.pop()
    return out


def violations(rel: str, text: str) -> list[str]:
    """The rule breaks of one file (rel: its path from the repository root)."""
    out = []
    for chain in chains(text):
        where = f"{rel}:{chain.line}"
        conditions = " ".join(chain.conditions)
        if rel != ISA_HOME and COMPILER_ISA.search(conditions):
            out.append(f"{where}: branches on a compiler ISA macro ({COMPILER_ISA.search(conditions).group(0)}); "
                       f"use ATTNSCOPE_SIMD, ATTNSCOPE_SIMD_AVX512 or ATTNSCOPE_SIMD_AVX2 from {ISA_HOME}")
            continue
        named = set(ONE_ISA.findall(conditions))
        if named and (named != ALL_ISAS or not chain.has_else):
            missing = sorted(ALL_ISAS - named)
            out.append(f"{where}: a branch for {', '.join(sorted(named))} without "
                       f"{', '.join(['ATTNSCOPE_SIMD_' + m for m in missing] + ([] if chain.has_else else ['#else']))}"
                       f": give every ISA its branch")
        elif ANY_ISA.search(conditions) and not chain.has_else:
            out.append(f"{where}: #if on ATTNSCOPE_SIMD without #else: say what a build without a vector ISA does "
                       f"there (a comment is enough when it needs nothing)")
    return out


def check_tree(root: Path) -> list[str]:
    out = []
    for top in SOURCE_DIRS:
        for path in sorted((root / top).rglob("*")):
            rel = path.relative_to(root).as_posix()
            if path.suffix not in SUFFIXES or rel.startswith("tests/style/isa_fixtures/") \
                    or rel.startswith("tests/emu/include/"):
                continue
            out += violations(rel, path.read_text(encoding="utf-8", errors="replace"))
    return out


def self_test(root: Path) -> int:
    """The rules must reject each broken fixture for its own reason and accept the good one."""
    fixtures = root / "tests/style/isa_fixtures"
    expected = {"compiler_macro.cpp": "compiler ISA macro", "one_isa_only.cpp": "without ATTNSCOPE_SIMD_AVX2",
                "no_else.cpp": "without #else", "good.cpp": None}
    status = 0
    for name, reason in expected.items():
        found = violations(f"tests/style/isa_fixtures/{name}", (fixtures / name).read_text(encoding="utf-8"))
        ok = (not found) if reason is None else any(reason in v for v in found)
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {found or 'no violation'}")
        status |= 0 if ok else 1
    return status


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--self-test":
        return self_test(Path(sys.argv[2]))
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    found = check_tree(Path(sys.argv[1]))
    for v in found:
        print(v)
    if found:
        print(f"{len(found)} ISA branch(es) without their counterparts")
        return 1
    print("every ISA-dependent branch has its counterparts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
