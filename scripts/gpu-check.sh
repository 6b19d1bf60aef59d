#!/usr/bin/env bash
# One command for a machine with an NVIDIA GPU: builds with CUDA (warnings are errors), runs the whole test
# suite (the CUDA cases really run there; any CUDA skip is a failure), compares every variant's output on cuda with
# cpu, runs every lesson's check on cuda, times `bench` on the GPU (CUDA events, device memory), times the flash
# kernel versions (core/backend/cuda/dev), and, when python3 has a CUDA build of torch, compares flash against
# torch's scaled_dot_product_attention on the same GPU. Writes one Markdown report. docs/GPU.md says how to run it.
#
# Usage: scripts/gpu-check.sh [--deps ARCHIVE] [BUILD_DIR]   (default BUILD_DIR: build-gpu)
#   --deps ARCHIVE                  a machine without network: take every build dependency from ARCHIVE (made by
#                                   scripts/gpu-pack.sh on Debian 12) instead of scripts/setup.sh
#   ARCHS=80;86;89;90 scripts/gpu-check.sh       build for these architectures (default: this GPU's only)
#   REPORT=path.md scripts/gpu-check.sh          where the report goes (default: BUILD_DIR/gpu-check-report.md)
#   PREBUILT=1 scripts/gpu-check.sh --deps ARCHIVE DIR   DIR holds programs built on another machine by
#                                   scripts/gpu-prebuild.sh: no configure or build, and no ctest (its paths are
#                                   that machine's); every other step runs, so a short GPU lease goes on measuring
# The GUI is built only where there is a display ($DISPLAY) and GLFW. Exit status: 0 when every step passed, 1 when
# a step failed, 3 when there is no GPU.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps=""
if [ "${1:-}" = "--deps" ]; then
  [ -n "${2:-}" ] || { echo "gpu-check: --deps needs the archive scripts/gpu-pack.sh wrote" >&2; exit 1; }
  deps="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
  shift 2
fi
build="${1:-$root/build-gpu}"
mkdir -p "$build"
build="$(cd "$build" && pwd)"
report="${REPORT:-$build/gpu-check-report.md}"
work="$build/gpu-check"
mkdir -p "$work"

say() { printf '[gpu-check] %s\n' "$*"; }

# --- 0. Is there a GPU at all? ------------------------------------------------------------------------------
if ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU here (nvidia-smi not found); run this on a machine with an NVIDIA GPU and driver" >&2
  exit 3
fi
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "gpu-check: nvidia-smi lists no GPU ($(nvidia-smi -L 2>&1 | head -n 1)); check the driver, then retry" >&2
  exit 3
fi
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then export PATH="/usr/local/cuda/bin:$PATH"; fi
command -v nvcc >/dev/null || { echo "gpu-check: nvcc not found: install the CUDA toolkit (or put it on PATH)" >&2; exit 1; }
gpu="$(nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader | head -n 1)"
cc="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')"
archs="${ARCHS:-$cc}"

failures=0
{
  echo "# attnscope GPU check"
  echo
  dirty=""
  [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] && dirty=" (the working tree differs from it)"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$dirty"
  echo "- GPU: $gpu"
  echo "- nvcc: $(nvcc --version | tail -n 1)"
  if [ "${PREBUILT:-0}" = 1 ]; then
    echo "- programs built elsewhere: $(cat "$build/PREBUILT" 2>/dev/null || echo "$build/PREBUILT missing")"
  else
    echo "- CUDA architectures built: $archs"
  fi
  echo
} > "$report"

# step NAME COMMAND...: runs a step, logs it to $work/NAME.log, records pass/fail in the report.
step() {
  local name="$1"
  shift
  say "$name"
  local start=$SECONDS
  if "$@" > "$work/$name.log" 2>&1; then
    echo "- [x] $name ($((SECONDS - start)) s)" >> "$report"
  else
    failures=$((failures + 1))
    {
      echo "- [ ] **$name FAILED** ($((SECONDS - start)) s), last lines of $work/$name.log:"
      echo '```'
      tail -n 30 "$work/$name.log"
      echo '```'
    } >> "$report"
  fi
}

echo "## Steps" >> "$report"
# --- 1. Build ----------------------------------------------------------------------------------------------
configure_args=(-DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_WERROR=ON -DATTNSCOPE_CUDA=ON "-DATTNSCOPE_CUDA_ARCHS=$archs")
# CMake 4 refuses the old minimum versions some packaged CMake configs still declare; older CMake ignores this.
configure_args+=(-DCMAKE_POLICY_VERSION_MINIMUM=3.5)
command -v ninja >/dev/null && configure_args+=(-G Ninja)
if [ -n "$deps" ]; then
  # shellcheck source=scripts/gpu-deps-env.sh
  source "$root/scripts/gpu-deps-env.sh" "$deps" "$work/deps" || exit 1
  configure_args+=("-DCMAKE_PREFIX_PATH=$ATTNSCOPE_GPU_DEPS")
  echo "- [x] dependencies from $deps (no network: scripts/setup.sh not run)" >> "$report"
else
  step setup "$root/scripts/setup.sh"
fi
if [ -n "${DISPLAY:-}" ] && pkg-config --exists glfw3 epoxy x11 2>/dev/null; then
  configure_args+=(-DATTNSCOPE_GUI=ON)
else
  configure_args+=(-DATTNSCOPE_GUI=OFF)
  echo "- GUI not built: no display (\$DISPLAY) or no GLFW/epoxy/X11 here" >> "$report"
fi
if [ "${PREBUILT:-0}" = 1 ]; then
  # The programs were built elsewhere (scripts/gpu-prebuild.sh); their CUDA architectures must include this GPU's.
  [ -x "$build/app/attnscope" ] || { echo "gpu-check: PREBUILT=1 but $build/app/attnscope is missing: make it with scripts/gpu-prebuild.sh" >&2; exit 1; }
  grep -qw "sm_$cc" "$build/PREBUILT" || { echo "gpu-check: $build was built for $(cat "$build/PREBUILT"), not this GPU's sm_$cc" >&2; exit 1; }
  # Their run path names the CUDA libraries where the other machine has them; add where this one does.
  for cuda_lib in /usr/local/cuda/lib64 /usr/local/cuda/lib; do
    [ -d "$cuda_lib" ] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$cuda_lib"
  done
else
  step configure cmake -S "$root" -B "$build" "${configure_args[@]}"
  keep_going=(-k)
  command -v ninja >/dev/null && keep_going=(-k 0)
  failures_before_build=$failures
  step build cmake --build "$build" -j "$(nproc)" -- "${keep_going[@]}"
  if [ "$failures" -ne "$failures_before_build" ]; then
    # The build step has failed and says why (every error, as it kept going). A newer compiler's new warning
    # should not also cost every measurement below, so build once more with warnings left as warnings.
    step build_warnings_not_errors bash -c "cmake -S '$root' -B '$build' -DATTNSCOPE_WERROR=OFF > /dev/null \
      && cmake --build '$build' -j '$(nproc)'"
  fi
fi

# --- 1a. The speed figures of docs/PERFORMANCE.md, first so a later step running long cannot lose them ----------
# flash from n = 4096 to 65536, causal and not: attnscope's own kernel in fp32 (and tf32 below n = 65536), CUTLASS's
# in fp32 (3×TF32), bf16 and fp16; the sparse, hashed and linear family at n = 16384; each beside torch SDPA in the
# same precision, timed on the same GPU in the same run.
speed_figures() {
  local bench=("$build/app/attnscope" bench --backend cuda --heads 8 --dim 64 --runs 5 --no-progress)
  # flash is kernel best (CUTLASS's where it takes the run); kernel=own is attnscope's teaching kernel.
  local flash=flash,flash:kernel=own,flash:precision=bf16,flash:precision=fp16
  "${bench[@]}" --variants "$flash" --n 4096,16384,65536 --json "$work/speed-flash.json" > /dev/null || return 1
  "${bench[@]}" --variants "$flash" --causal --n 4096,16384,65536 --json "$work/speed-flash-causal.json" > /dev/null \
    || return 1
  "${bench[@]}" --variants flash:precision=tf32 --n 4096,16384 --json "$work/speed-flash-tf32.json" > /dev/null || return 1
  "${bench[@]}" --variants full,flash,flash:kernel=own,longformer:global=none,sink,blocksel,bigbird,vslash,lsh,performer,linear \
    --n 16384 --json "$work/speed-family.json" > /dev/null || return 1
  python3 "$root/scripts/gpu_speed_figures.py" "$work"/speed-*.json
}
step speed_figures speed_figures
{ echo; echo "## Speed figures (H = 8, d = 64)"; echo; grep -E '^[|#]|^$' "$work/speed_figures.log" | cat -s; } >> "$report"

# --- 2. The CUDA cases must run, not skip (the whole suite runs last: it is the longest step) ---------------------
model="${ATTNSCOPE_CACHE:-$HOME/.cache/attnscope}/models/all-MiniLM-L6-v2/model.safetensors"
cuda_cases() {
  "$build/tests/attnscope_tests" --gtest_filter='*cuda*' > "$work/cuda_cases.txt" 2>&1 || return 1
  local skipped ran
  skipped="$(grep -c '^\[  SKIPPED \]' "$work/cuda_cases.txt" || true)"
  ran="$(grep -c '^\[       OK \]' "$work/cuda_cases.txt" || true)"
  echo "CUDA cases passed: $ran, skipped: $skipped"
  [ "$ran" -gt 0 ] && [ "$skipped" -eq 0 ]
}
step cuda_cases_ran_not_skipped cuda_cases

# --- 3. attnscope run on both backends ---------------------------------------------------------------------
run_both() {
  local n
  for n in 256 1024 4096; do
    for causal in "" "--causal"; do
      for backend in cpu cuda; do
        local tag="n${n}${causal:+-causal}-$backend"
        "$build/app/attnscope" run --variant full,flash --data gaussian --n "$n" --heads 8 --dim 64 $causal \
          --backend "$backend" --json "$work/run-$tag.json" || return 1
      done
    done
  done
}
step attnscope_run_cpu_vs_cuda run_both
{
  echo
  echo "## attnscope run: cpu vs cuda (gaussian, H = 8, d = 64; metrics against full on the same backend)"
  echo
  python3 - "$work" <<'PY'
import json, sys, pathlib
rows = []
for f in sorted(pathlib.Path(sys.argv[1]).glob("run-*.json")):
    data = json.loads(f.read_text())
    for r in data["results"]:
        m, c = r["metrics"], r["cost"]
        rows.append((data["input"]["n"], f.stem.split("-", 1)[1], data["backend"], r["variant"], m.get("rel_err_out"),
                     c.get("time_ms"), c.get("peak_bytes")))
print("| n | run | backend | variant | rel_err_out | time_ms (wall; cuda includes host↔device copies) | peak host bytes |")
print("|---|---|---|---|---|---|---|")
for row in sorted(rows, key=lambda x: (x[0], x[1], x[3])):
    print("| " + " | ".join("-" if v is None else (f"{v:.3g}" if isinstance(v, float) else str(v)) for v in row) + " |")
PY
} >> "$report" 2>&1

# --- 3a. Every variant: the same output on cuda as on cpu -----------------------------------------------------
every_variant() {
  local variants
  variants="$("$build/app/attnscope" variants | grep -E '^[a-z]' | cut -d' ' -f1 | paste -sd, -)"
  for backend in cpu cuda; do
    "$build/app/attnscope" run --variant "$variants" --data gaussian --n 1024 --heads 4 --dim 64 \
      --backend "$backend" --npy "$work/variants-$backend" > /dev/null || return 1
  done
  python3 "$root/scripts/gpu_compare_backends.py" "$work/variants-cpu" "$work/variants-cuda" --tolerance 1e-4
}
step every_variant_cuda_vs_cpu every_variant
{ echo; echo "## Every variant: output on cuda against cpu (gaussian, n = 1024, H = 4, d = 64)"; echo
  grep -E '^\||within' "$work/every_variant_cuda_vs_cpu.log"; } >> "$report"

# --- 3a'. Every lesson's check on cuda (the lessons on text need the encoder's weights) ----------------------------
lessons_on_cuda() {
  local id failed=0  # $model: the encoder's weights (step 2)
  for id in $("$build/app/attnscope" lesson | awk '$1 ~ /^[a-z]/ {print $1}'); do
    if grep -q '"text"' "$root/assets/lessons/$id.json" && [ ! -f "$model" ]; then
      echo "| $id | not run: it reads text and the encoder's weights are not here ($model) |"
      continue
    fi
    if "$build/app/attnscope" lesson "$id" --check --backend cuda > "$work/lesson-$id.log" 2>&1; then
      echo "| $id | passed |"
    else
      echo "| $id | **failed**: $(tail -n 1 "$work/lesson-$id.log") |"
      failed=1
    fi
  done
  return "$failed"
}
step lessons_on_cuda lessons_on_cuda
{ echo; echo "## Lesson checks on cuda"; echo; echo "| lesson | check |"; echo "|---|---|"
  grep '^|' "$work/lessons_on_cuda.log"; } >> "$report"

# --- 3b. SVD on the GPU, timing by CUDA events, device memory ------------------------------------------------
# Spectra on both backends (n = 512: cuSOLVER gesvd per head; n = 24: batched Jacobi; n = 4096: randomized top-k
# with the CPU's sketch), a bench on CUDA (clock, device ms, peak device bytes), and a run too large for the GPU
# (must fail before launch with a sentence naming the memory needed and free and suggesting --backend cpu).
spectra_both() {
  local n backend
  for n in 24 512 4096; do
    for backend in cpu cuda; do
      "$build/app/attnscope" spectrum --variant linformer --set k=16 --data lowrank --n "$n" --heads 4 --dim 32 --top 64 \
        --spectrum-head -1 --backend "$backend" --json "$work/spectrum-n$n-$backend.json" > /dev/null || return 1
    done
  done
  python3 - "$work" <<'PY'
import json, sys, pathlib
work, worst = pathlib.Path(sys.argv[1]), 0.0
for n in (24, 512, 4096):
    cpu = json.loads((work / f"spectrum-n{n}-cpu.json").read_text())["spectra"]
    gpu = json.loads((work / f"spectrum-n{n}-cuda.json").read_text())["spectra"]
    for a, b in zip(cpu, gpu):
        s1 = max(a["singular_values"][0], 1e-30)
        d = max(abs(x - y) for x, y in zip(a["singular_values"], b["singular_values"])) / s1
        worst = max(worst, d)
        print(f"n={n} {a['matrix']} head {a['head']} exact={a['exact']}: max |σ_cpu − σ_cuda| / σ_1 = {d:.2e}")
print(f"worst: {worst:.2e} (tolerance 1e-3)")
sys.exit(0 if worst <= 1e-3 else 1)
PY
}
step svd_spectra_cpu_vs_cuda spectra_both
{ echo; echo "## Singular values: cuSOLVER vs LAPACK (σ relative to σ_1)"; echo '```'; tail -n 40 "$work/svd_spectra_cpu_vs_cuda.log"; echo '```'; } >> "$report"

bench_events() {
  "$build/app/attnscope" bench --variants flash,full,linformer,performer --n 1024:8192 --heads 8 --dim 64 --runs 5 \
    --backend cuda --json "$work/bench-cuda.json" > /dev/null || return 1
  python3 - "$work/bench-cuda.json" <<'PY'
import json, sys
ok = True
print("| variant | n | clock | time median ms | device median ms | of it copies ms (MiB) | kernels and gaps ms "
      "| wall median ms | peak device MiB |")
print("|---|---|---|---|---|---|---|---|---|")
for p in json.load(open(sys.argv[1]))["points"]:
    if p["status"] != "measured":
        print(f"| {p['label']} | {p['n']} | {p['status']}: {p['reason']} | | | | | | |"); continue
    dev = p["memory"]["peak_device_bytes"]
    copies = p["device_copy_median_ms"]
    ok = ok and p["clock"] == "cuda-events+host-wall" and p["device_median_ms"] > 0 and dev > 0
    ok = ok and 0 < copies < p["device_median_ms"] and p["device_copy_bytes"] > 0  # O out (Q, K, V stay on the device)
    print(f"| {p['label']} | {p['n']} | {p['clock']} | {p['time_ms']['median']:.3f} | {p['device_median_ms']:.3f} | "
          f"{copies:.3f} ({p['device_copy_bytes'] / 2**20:.1f}) | {p['device_median_ms'] - copies:.3f} | "
          f"{p['wall_median_ms']:.3f} | {dev / 2**20:.1f} |")
# The GEMM roofs the points are paired with: cuBLAS on device-resident operands (CUDA events), and the host-tensor
# gemm with its copies, apart.
gemm = json.load(open(sys.argv[1]))["machine"]["gemm"]
print()
print(f"| GEMM roof, {gemm['size']}² | GFLOP/s by CUDA events | GFLOP/s by host wall |")
print("|---|---|---|")
for d in gemm.get("device_resident", []):
    print(f"| cuBLAS {d['precision']}, operands on the device | {d['gflops']:.0f} | {d['wall_gflops']:.0f} |")
    ok = ok and d["gflops"] > 0
print(f"| {gemm['backend_gemm']} on host tensors (copies included) | — | {gemm['backend_gflops']:.0f} |")
ok = ok and gemm["roof"] == "cublas-resident" and len(gemm.get("device_resident", [])) == 3
sys.exit(0 if ok else 1)
PY
}
step bench_cuda_events_and_device_memory bench_events
{ echo; echo "## Bench on CUDA: CUDA-event clock, tracked device memory and the GEMM roofs"; echo; grep -E '^[|]|^$' "$work/bench_cuda_events_and_device_memory.log" | cat -s; } >> "$report"

oom_message() {
  if "$build/app/attnscope" run --variant full --data gaussian --n 65536 --heads 64 --dim 64 --backend cuda \
       > "$work/oom.out" 2> "$work/oom.err"; then
    echo "a 64-head n = 65536 full run was expected to exceed device memory but it ran"; return 1
  fi
  cat "$work/oom.err"
  grep -q "device memory" "$work/oom.err" && grep -q -- "--backend cpu" "$work/oom.err"
}
step device_out_of_memory_message oom_message
{ echo; echo "## Device out of memory (full, n = 65536, H = 64)"; echo '```'; cat "$work/oom.err" 2>/dev/null; echo '```'; } >> "$report"

# --- 4. Kernel versions (core/backend/cuda/dev) and torch SDPA -----------------------------------------------------------
{
  echo
  echo "## Flash kernel versions (core/backend/cuda/dev/flash_attention.cu, CUDA events, validated against a CPU reference)"
  echo
} >> "$report"
dev_runs() {
  local v
  for v in 1 2 3; do "$build/core/backend/cuda/flash_attention_dev" "$v" 2048 64 8 0 || return 1; done
  "$build/core/backend/cuda/flash_attention_dev" 2 2048 64 8 1 || return 1
  "$build/core/backend/cuda/flash_attention_dev" 2 1000 128 4 1 || return 1
  "$build/core/backend/cuda/flash_attention_dev" 2 77 32 2 0 || return 1
}
step flash_dev_versions dev_runs
{ echo '```'; grep -E "^version|^flash|FAIL" "$work/flash_dev_versions.log"; echo '```'; } >> "$report"

# The other families' workbenches (version 1 naive, version 2 production; each validates both, then times one).
{
  echo
  echo "## Other kernel workbenches (core/backend/cuda/dev: block-sparse, LSH, linear attention, pooled view)"
  echo
} >> "$report"
other_dev_runs() {
  local v
  for v in 1 2; do
    "$build/core/backend/cuda/block_sparse_attention_dev" "$v" 4096 64 8 64 1 || return 1
    "$build/core/backend/cuda/lsh_attention_dev" "$v" 4096 64 8 4 64 0 || return 1
    "$build/core/backend/cuda/linear_attention_dev" "$v" 2048 64 4 1 64 || return 1
    "$build/core/backend/cuda/pooled_view_dev" "$v" 4096 4096 2 512 0 || return 1
  done
  "$build/core/backend/cuda/block_sparse_attention_dev" 2 1000 200 2 16 0 || return 1   # head dim above 128 (sliced)
  "$build/core/backend/cuda/lsh_attention_dev" 2 1000 160 2 8 100 1 || return 1         # sliced, chunk > 64, causal
}
step other_dev_versions other_dev_runs
{ echo '```'; grep -E "^version|dev:|FAIL" "$work/other_dev_versions.log"; echo '```'; } >> "$report"

echo >> "$report"
echo "## flash vs torch scaled_dot_product_attention" >> "$report"
if python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" >/dev/null 2>&1; then
  torch_compare() {
    local n causal dir
    for n in 1024 4096; do
      for causal in 0 1; do
        dir="$work/torch-n$n-c$causal"
        mkdir -p "$dir"
        "$build/core/backend/cuda/flash_attention_dev" 2 "$n" 64 8 "$causal" "$dir" > "$dir/dev.log" || return 1
        python3 "$root/scripts/gpu_torch_compare.py" "$dir" >> "$work/torch_sections.md" || return 1
      done
    done
  }
  : > "$work/torch_sections.md"
  step torch_sdpa_compare torch_compare
  cat "$work/torch_sections.md" >> "$report"
else
  echo "skipped: python3 has no CUDA build of torch (pip install torch to include this comparison)" >> "$report"
fi

# --- 5. The whole suite, last (the CPU cases too: another compiler can find what this one does not) -----------
# Left out, each for a reason the report names: what needs network, what needs every architecture, what needs the
# encoder's weights when they are not here.
excluded=()
[ -n "$deps" ] && excluded+=("setup.cold_cache:it downloads the pinned packages (no network)")
[ "$archs" != "80;86;89;90" ] && excluded+=("cuda.kernels_per_arch:it checks all four architectures; this build has $archs")
if [ ! -f "$model" ]; then
  for t in cli.text_input lesson.attention-sinks lesson.low-rank lesson.the-ceiling; do
    excluded+=("$t:it reads text and the encoder's weights are not here")
  done
fi
exclude_regex=""
for e in "${excluded[@]}"; do
  exclude_regex+="${exclude_regex:+|}^${e%%:*}\$"
  echo "- not run by ctest: ${e%%:*} (${e#*:})" >> "$report"
done
if [ "${PREBUILT:-0}" = 1 ]; then
  echo "- ctest not run: the programs were built on another machine (PREBUILT=1), so its test paths are that machine's" >> "$report"
else
  step ctest bash -c "cd '$build' && ctest --output-on-failure -j '$(nproc)' ${exclude_regex:+-E '$exclude_regex'}"
fi

echo >> "$report"
if [ "$failures" -eq 0 ]; then
  echo "**Result: all steps passed.**" >> "$report"
else
  echo "**Result: $failures step(s) failed.** Logs: $work" >> "$report"
fi
say "report: $report"
[ "$failures" -eq 0 ]
