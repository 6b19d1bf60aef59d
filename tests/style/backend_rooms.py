#!/usr/bin/env python3
"""The backend wing's rooms include each other only downwards: shared/ (host/device headers both backends and data/
read) includes nothing of the wing; interface/ only shared/; cpu/ and cuda/ only interface/ and shared/, never each
other; factory/ may include them all. farm-studio does not read .cuh files, so this check reads every file itself.
usage: backend_rooms.py REPO_ROOT         exits 1 listing each include that goes up or across
       backend_rooms.py --self-test       shows the rule rejects a cuda → cpu include"""
import pathlib
import re
import sys

ALLOWED = {
    "shared": {"shared"},
    "interface": {"shared", "interface"},
    "cpu": {"shared", "interface", "cpu"},
    "cuda": {"shared", "interface", "cuda"},
    "factory": {"shared", "interface", "cpu", "cuda", "factory"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s*"core/backend/([a-z_]+)/', re.M)


def violations(room: str, name: str, text: str) -> list[str]:
    """The includes of one file of `room` that leave the rooms it may read."""
    return [f"{name}: includes core/backend/{target}/ (a {room}/ file may include only "
            f"{', '.join(sorted(ALLOWED[room]))})"
            for target in INCLUDE.findall(text) if target not in ALLOWED[room]]


def check(root: pathlib.Path) -> list[str]:
    found = []
    for room in ALLOWED:
        for path in sorted((root / "core/backend" / room).rglob("*")):
            if path.suffix in {".h", ".cpp", ".cu", ".cuh"}:
                found += violations(room, str(path.relative_to(root)), path.read_text(errors="replace"))
    return found


def self_test() -> int:
    bad = violations("cuda", "core/backend/cuda/x.cuh", '#include "core/backend/cpu/online_softmax.h"\n')
    good = violations("cuda", "core/backend/cuda/y.cuh", '#include "core/backend/shared/online_softmax.h"\n')
    if len(bad) == 1 and not good:
        print("backend_rooms: rejects a cuda → cpu include, accepts cuda → shared")
        return 0
    print(f"backend_rooms self-test failed: {bad} {good}")
    return 1


def main() -> int:
    if sys.argv[1:2] == ["--self-test"]:
        return self_test()
    found = check(pathlib.Path(sys.argv[1]))
    for line in found:
        print(line)
    if found:
        print("move what both sides need into core/backend/shared/")
        return 1
    print("every include of the backend wing goes down or stays in its room")
    return 0


if __name__ == "__main__":
    sys.exit(main())
