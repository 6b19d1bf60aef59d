#!/usr/bin/env python3
"""Every CUDA kernel of the library (a __global__ function in core/backend/cuda/*.cu or *.cuh, the dev workbenches
aside) is named in ATTNSCOPE_CUDA_KERNELS (core/backend/cuda/CMakeLists.txt), the list cuda.kernels_per_arch checks
with cuobjdump for every architecture; a kernel left out of it would go unchecked without any test noticing.
Runs from the sources alone, so a build without CUDA checks it too.
usage: cuda_kernel_list.py REPO_ROOT — exits 1 naming each kernel missing from the list, and each listed name
that matches no kernel."""
import pathlib
import re
import sys

cuda = pathlib.Path(sys.argv[1]) / "core" / "backend" / "cuda"
kernels = set()
for path in list(cuda.glob("*.cu")) + list(cuda.glob("*.cuh")):
    text = path.read_text(encoding="utf-8")
    # __global__ [void] [__launch_bounds__(…)] [void] NAME(  — the launch bounds may wrap onto the next line
    for m in re.finditer(r"__global__\s+(?:void\s+)?(?:__launch_bounds__\([^)]*\)\s*)?(?:void\s+)?(\w+)\s*\(", text):
        kernels.add(m.group(1))
cmake = (cuda / "CMakeLists.txt").read_text(encoding="utf-8")
block = re.search(r"set\(ATTNSCOPE_CUDA_KERNELS(.*?)CACHE INTERNAL", cmake, re.S)
listed = re.findall(r'"?([A-Za-z_][A-Za-z0-9_]*)"?', block.group(1)) if block else []
missing = sorted(k for k in kernels if not any(entry.startswith(k) for entry in listed))
stale = sorted(entry for entry in listed if not any(entry.startswith(k) for k in kernels))
for k in missing:
    print(f"kernel {k} is not in ATTNSCOPE_CUDA_KERNELS (core/backend/cuda/CMakeLists.txt): add its name there")
for e in stale:
    print(f"ATTNSCOPE_CUDA_KERNELS names {e}, which no kernel in core/backend/cuda defines: remove or rename it")
if missing or stale or not kernels:
    sys.exit(1)
print(f"all {len(kernels)} kernels are in ATTNSCOPE_CUDA_KERNELS")
