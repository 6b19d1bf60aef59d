#!/usr/bin/env bash
# The bad-input matrix: every command and every input kind given something wrong. Each case must end with the
# expected exit status (2: refused before any work), exactly one line on stderr that holds the expected words
# (what was wrong and what is allowed), no signal, within 60 s and — unless the binary is sanitized, whose shadow
# memory needs terabytes of address space — within 4 GiB of address space.
# usage: bad_input_matrix.sh ATTNSCOPE WORK_DIR [sanitized]
set -uo pipefail
app="$1"; work="$2"; sanitized="${3:-}"
golden="$(cd "$(dirname "${BASH_SOURCE[0]}")/../golden" && pwd)"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
failures=0; cases=0

# expect STATUS WORDS ARGS...: runs attnscope ARGS and checks status, one stderr line holding WORDS, no signal.
expect() {
  local status="$1" words="$2"; shift 2
  cases=$((cases + 1))
  local start=$SECONDS rc
  if [ -n "$sanitized" ] && [ "$1" = gui ]; then
    # Mesa's driver is unloaded before LeakSanitizer runs: its allocations show as leaks from an unknown module.
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 60 "$app" "$@" >out.txt 2>err.txt; rc=$?
  elif [ -n "$sanitized" ]; then
    timeout 60 "$app" "$@" >out.txt 2>err.txt; rc=$?
  else
    (ulimit -v 4194304; exec timeout 60 "$app" "$@") >out.txt 2>err.txt; rc=$?
  fi
  local lines; lines=$(grep -c '' err.txt)
  local verdict=ok
  if [ "$rc" -eq 124 ]; then verdict="timed out (> 60 s)"
  elif [ "$rc" -ge 128 ]; then verdict="killed by signal $((rc - 128))"
  elif [ "$rc" -ne "$status" ]; then verdict="exit $rc, expected $status"
  elif ! grep -qF -- "$words" err.txt; then verdict="stderr lacks '$words'"
  elif [ "$lines" -ne 1 ]; then verdict="$lines lines on stderr, expected 1"
  fi
  printf '[case %2d] attnscope %s -> exit %s in %d s: %s\n' "$cases" "$*" "$rc" $((SECONDS - start)) "$(head -c 300 err.txt)"
  if [ "$verdict" != ok ]; then
    echo "  FAILED: $verdict"; cat err.txt; failures=$((failures + 1))
  fi
}

# npy FILE DESCR FORTRAN SHAPE DATA_FILE: a .npy with this header and these bytes.
npy() {
  local header="{'descr': '$2', 'fortran_order': $3, 'shape': $4, }"
  local total=$((10 + ${#header} + 1)); local pad=$(( (64 - total % 64) % 64 ))
  header="$header$(printf '%*s' "$pad" '')"
  local len=$(( ${#header} + 1 ))
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((len & 255)))\\x$(printf %02x $((len >> 8)))";
    printf '%s\n' "$header"; cat "$5"; } > "$1"
}
floats() { python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<%df' % $1, *[((i * 37) % 11 - 5) / 7 for i in range($1)]))"; }
tensor_dir() {  # tensor_dir NAME: a valid q/k/v folder (2, 5, 3) to break one file of
  mkdir -p "$1"; floats 30 > f30.bin
  for t in q k v; do npy "$1/$t.npy" '<f4' False '(2, 5, 3)' f30.bin; done
}

# CLI values: signs, ranges, non-numbers, overflow, NaN and infinity.
expect 2 "-3 is negative: give a whole number ≥ 0" run --variant full --n 16 --seed -3
expect 2 "-1 is negative: give a whole number ≥ 0" bench --variants full --n 64 --seed -1
expect 2 "-4 is negative: give a whole number ≥ 0" sweep --variant lsh --param rounds=1:2 --seed -4
expect 2 "the factor x0 must be > 1" sweep --variant lsh --param rounds=1:8:x0
expect 2 "the factor x-2 must be > 1" sweep --variant lsh --param rounds=1:8:x-2
expect 2 "the step +0 must be > 0" sweep --variant lsh --param rounds=1:8:+0
expect 2 "START must be ≤ STOP" sweep --variant lsh --param rounds=8:1
expect 2 "has no parameter 'k'" sweep --variant svd --param k=1:4
expect 2 "Could not convert: --n = 1e30" run --variant full --n 1e30
expect 2 "Could not convert: --n = 99999999999" run --variant full --n 99999999999
expect 2 "n = 2000000 is out of range: choose 1 ≤ n ≤ 1048576" run --variant full --n 2000000
expect 2 "n = 0 is out of range" run --variant flash --n 0
expect 2 "heads" run --variant full --n 16 --heads 0
expect 2 "dim" run --variant full --n 16 --dim -1
expect 2 "temperature" run --variant full --n 16 --temperature nan
expect 2 "temperature" run --variant full --n 16 --temperature inf
expect 2 "parameter scale='nan' is not a finite number" run --variant full --n 16 --set scale=nan
expect 2 "parameter scale='inf' is not a finite number" run --variant full --n 16 --set scale=inf
expect 2 "parameter scale='1e400' is not a finite number" run --variant full --n 16 --set scale=1e400
expect 2 "lsh: buckets n_b = 3 must be 1 or even" run --variant lsh --n 64 --set buckets=3
expect 2 "svd: rank r = 65 > n = 64" run --variant svd --n 64 --set rank=65
expect 2 "linformer: k = 65 > n = 64" run --variant linformer --n 64 --set k=65
expect 2 "'0' is not a length in [1, 2^30]" bench --variants full --n 0
expect 2 "runs 0" bench --variants full --n 64 --runs 0
expect 2 "unknown lesson 'nosuch'" lesson nosuch
expect 2 "unknown variant 'nosuch'" spectrum --variant nosuch --n 16

# Tensor files: truncated, corrupt, mis-shaped, NaN/inf, integer, big-endian, Fortran order, empty, 4-D.
tensor_dir good
cp -r good truncated; head -c 100 good/q.npy > truncated/q.npy
expect 2 "q.npy" run --variant full --tensors truncated
cp -r good magic; printf 'NOTNUMPY' > magic/k.npy
expect 2 "k.npy" run --variant full --tensors magic
cp -r good empty_file; : > empty_file/v.npy
expect 2 "v.npy" run --variant full --tensors empty_file
cp -r good misshaped; floats 24 > f24.bin; npy misshaped/k.npy '<f4' False '(2, 4, 3)' f24.bin
expect 2 "n" run --variant full --tensors misshaped
cp -r good nan; python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<30f', *([float('nan')] * 30)))" > nan.bin
npy nan/q.npy '<f4' False '(2, 5, 3)' nan.bin
expect 2 "NaN" run --variant full --tensors nan
cp -r good inf; python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<30f', *([float('inf')] * 30)))" > inf.bin
npy inf/v.npy '<f4' False '(2, 5, 3)' inf.bin
expect 2 "inf" run --variant full --tensors inf
cp -r good integer; npy integer/q.npy '<i4' False '(2, 5, 3)' f30.bin
expect 2 "dtype '<i4'" run --variant full --tensors integer
cp -r good bigendian; npy bigendian/q.npy '>f4' False '(2, 5, 3)' f30.bin
expect 2 "dtype '>f4'" run --variant full --tensors bigendian
cp -r good fortran; npy fortran/q.npy '<f4' True '(2, 5, 3)' f30.bin
expect 2 "Fortran (column-major) order" run --variant full --tensors fortran
cp -r good zero_length; : > none.bin; for t in q k v; do npy zero_length/$t.npy '<f4' False '(0, 3)' none.bin; done
expect 2 "zero_length" run --variant full --tensors zero_length
cp -r good four_d; npy four_d/q.npy '<f4' False '(1, 2, 5, 3)' f30.bin
expect 2 "q.npy" run --variant full --tensors four_d
cp -r good missing_v; rm missing_v/v.npy
expect 2 "v.npy" run --variant full --tensors missing_v
printf '\x08\x00\x00\x00\x00\x00\x00\x00{"q": {' > broken.safetensors
expect 2 "broken.safetensors" run --variant full --tensors broken.safetensors
printf '\xff\xff\xff\xff\xff\xff\xff\x7f{}' > huge_header.safetensors
expect 2 "huge_header.safetensors" run --variant full --tensors huge_header.safetensors
expect 2 "does not exist" run --variant full --tensors nothing_here.safetensors
# A key tensor of shape (0, 3): the empty read once reached memcpy with a null pointer (found by fuzzing).
h='{"q":{"dtype":"F32","shape":[1,3],"data_offsets":[0,12]},"k":{"dtype":"F32","shape":[0,3],"data_offsets":[12,12]},"v":{"dtype":"F32","shape":[1,3],"data_offsets":[12,24]}}'
{ printf "$(printf '\\x%02x' ${#h})\x00\x00\x00\x00\x00\x00\x00"; printf '%s' "$h"; head -c 24 /dev/zero; } > zero_k.safetensors
expect 2 "tensor 'k' has shape (0, 3)" run --variant full --tensors zero_k.safetensors

# Text: invalid UTF-8, empty, over-long, a missing file, a broken model folder (only where the model is set up).
printf 'caf\xc3 au lait' > invalid.txt
if "$app" run --variant full --text "a test" >/dev/null 2>&1; then
  expect 2 "UTF-8" run --variant full --text-file invalid.txt
  expect 2 "the text is empty" run --variant full --text ""
  expect 2 "the text is empty" run --variant full --text "   "
  expect 2 "the text is empty" sweep --variant lsh --param rounds=1:2 --text " "
  python3 -c "print('word ' * 3000)" > long.txt
  expect 2 "tokens but the model takes at most 512" run --variant full --text-file long.txt
else
  echo "[skip] text cases: the encoder model is not set up here (scripts/setup.sh installs it)"
fi
# Memory: a request whose estimate exceeds what the host can give is refused before it allocates, naming both.
expect 2 "the synthetic input (n = 1048576, H = 64, d = 1024) needs an estimated" run --variant flash --n 1048576 --heads 64 --dim 1024
expect 2 "full at n = 200000, H = 4 needs an estimated" run --variant full --n 200000 --heads 4 --dim 8
expect 2 "the synthetic input (n = 1048576, H = 64, d = 1024) needs an estimated" sweep --variant lsh --param rounds=1:2 --n 1048576 --heads 64 --dim 1024
expect 2 "no_such.txt" run --variant full --text-file no_such.txt
mkdir -p broken_model; printf '{"hidden_size": ' > broken_model/config.json; : > broken_model/vocab.txt
expect 2 "config.json" run --variant full --text "a test" --model broken_model
mkdir -p empty_model
expect 2 "empty_model" run --variant full --text "a test" --model empty_model

# GGUF decoder files (tests/golden/tiny_llama, made by make_tiny_llama.py) and files made here: not GGUF, cut in the
# metadata or in the tensor data, a removed tensor type, another architecture, a missing tensor, no vocabulary, an
# empty file, a folder named .gguf, a text longer than the context, and the decoder asked for the encoder's what-if.
tiny="$golden/tiny_llama"
expect 2 "does not start with the bytes 'GGUF'" run --variant full --text "a" --model "$tiny/not-gguf.gguf"
expect 2 "failed to read key-value pairs): the file is truncated or corrupt" run --variant full --text "a" --model "$tiny/header-only.gguf"
expect 2 "is truncated: tensor 'blk.1.ffn_up.weight' ends at byte" run --variant full --text "a" --model "$tiny/truncated.gguf"
expect 2 "a tensor is stored in a type ggml does not read" run --variant full --text "a" --model "$tiny/bad-tensor-type.gguf"
expect 2 "is a 'gpt2' model: attnscope runs llama-architecture decoders" sweep --variant lsh --param rounds=1:2 --text "a" --model "$tiny/other-arch.gguf"
expect 2 "has no tensor 'blk.1.ffn_down.weight'" figure --variant full --view weights --text "a" --model "$tiny/missing-tensor.gguf" --out f.png
expect 2 "has no vocabulary" run --variant full --text "a" --model "$tiny/no-vocab.gguf"
: > empty.gguf
expect 2 "is not a GGUF file" run --variant full --text "a" --model empty.gguf
mkdir -p folder.gguf
expect 2 "no GGUF model file at 'folder.gguf'" run --variant full --text "a" --model folder.gguf
head -c 4 "$tiny/tiny-llama-mixed.gguf" > magic-only.gguf
expect 2 "is not a readable GGUF file" run --variant full --text "a" --model magic-only.gguf
python3 -c "print('word ' * 100)" > over_context.txt
expect 2 "takes at most 64 (its context)" run --variant full --text-file over_context.txt --model "$tiny/tiny-llama-mixed.gguf"
expect 2 "layer 2 is out of range: the model has layers 0 to 1" run --variant full --text "a b" --layer 2 --model "$tiny/tiny-llama-mixed.gguf"
expect 2 "is a decoder: measure perplexity instead, or choose the encoder" sweep --variant lsh --param rounds=1:2 --metric embedding_cosine --text "a b" --model "$tiny/tiny-llama-mixed.gguf"
# The decoder's perplexity what-ifs and StreamingLLM: a bidirectional variant, a bad layer span, the wrong model kind.
expect 2 "reads later tokens (it does not run causal)" run --variant full:causal=0 --text "a b c" --whatif-layer all --model "$tiny/tiny-llama-mixed.gguf"
expect 2 "is out of range: give a layer (0 to 1)" run --variant sink --text "a b c" --whatif-layer 5 --model "$tiny/tiny-llama-mixed.gguf"
expect 2 "runs backwards" run --variant sink --text "a b c" --whatif-layer 1-0 --model "$tiny/tiny-llama-mixed.gguf"
expect 2 "is an encoder: choose the decoder (smollm2)" sweep --variant lsh --param rounds=1:2 --metric perplexity --text "a b"
expect 2 "--y perplexity needs text input" errmap --variant full --n 16 --y perplexity
expect 2 "--view perplexity runs a decoder" figure --variant sink --n 16 --view perplexity --out f.png
expect 2 "streaming measures a decoder's perplexity" streaming --model minilm --text "a b c"
expect 2 "is not a whole number ≥ 1" streaming --windows 64,0 --model "$tiny/tiny-llama-mixed.gguf" --text "a b c"
expect 2 "is outside 1 … n − 1" streaming --windows 50 --recompute-samples 0 --model "$tiny/tiny-llama-mixed.gguf" --text "a b c d e"

# Figures: a bad view, theme, size, format, head or instance is a sentence, before anything runs.
expect 2 "is not weights, mask, difference or buckets (matrices) or spectrum, sweep, errmap, heads, sinks, performance or perplexity" figure --variant full --n 16 --view heat --out f.png
expect 2 "is not light or dark" figure --variant full --n 16 --theme sepia --out f.png
expect 2 "is not WIDTH or WIDTHxHEIGHT" figure --variant full --n 16 --size big --out f.png
expect 2 "must end in .png or .svg" figure --variant full --n 16 --out f.jpg
expect 2 "--view-head 7 does not exist" figure --variant full --n 16 --heads 2 --view-head 7 --out f.png
expect 2 "is above --matrix-limit" figure --variant flash --n 4096 --heads 1 --dim 8 --out f.png
expect 2 "is not NAME=VALUE (e.g. --variant svd:rank=8)" figure --variant svd:rank --n 16 --out f.png
expect 2 "full has no budget parameter" sweep --variant full --param budget=2:8:x2 --n 16
expect 2 "is not time, flops or memory" errmap --variant full --n 16 --x speed
expect 2 "not n" errmap --variant longformer --param n=16:32:x2 --n 16
# Modifiers: a document mask with nothing to split by, a boundary past the end, a cap of 0, an unknown modifier.
expect 2 "set boundaries to the start positions" run --variant longformer:mask_mod=document --n 32
expect 2 "is outside the input's positions" run --variant sink:mask_mod=document:boundaries=0,40 --n 32
expect 2 "cap" run --variant full:score_mod=softcap:cap=0 --n 16
expect 2 "is not one of none, alibi, softcap" run --variant flash:score_mod=rope --n 16

# A session with a value of the wrong type: the error names the entry or the key (figure and run read sessions
# without the GUI, so these run in every build).
printf '{"version": 1, "variants": [{"id": "svd", "params": {"rank": "eight"}}]}' > wrong_type.json
expect 2 "variant #1: svd" figure --session wrong_type.json --out f.png
printf '{"version": 1, "view": {"mask": "yes"}}' > wrong_bool.json
expect 2 "'mask' is \"yes\"; it must be true or false" figure --session wrong_bool.json --out f.png
printf '{"version": 1, "input": {"mode": "synthetic", "heads": 65}, "variants": [{"id": "full"}]}' > wrong_heads.json
expect 2 "the session's input: 'heads' is 65" run --session wrong_heads.json

# Session files for the GUI (refused before a window opens; the unreadable file is kept as .bad).
if ! "$app" gui --help 2>&1 | grep -q -- --session; then
  echo "[skip] GUI session cases: this build has no GUI"
  echo "bad-input matrix: $cases cases, $failures failed"
  [ "$failures" -eq 0 ]; exit
fi
printf '{"version": 1, "input": {"n": 1' > half.json
expect 2 "-2 is negative: give a whole number ≥ 0" gui --seed -2 --frames 1
expect 2 "not valid JSON" gui --session half.json --frames 1 --screenshot shot.png
printf '{"version": 99}' > future.json
expect 2 "version" gui --session future.json --frames 1 --screenshot shot.png
# A session asking for more memory than there is: the GUI opens, shows why in its banner (exit 3 on a screenshot).
printf '{"version": 1, "input": {"mode": "synthetic", "n": 1048576, "heads": 64, "dim": 1024}, "variants": [{"id": "flash"}]}' > huge.json
expect 3 "needs an estimated" gui --session huge.json --frames 5 --screenshot shot.png

echo "bad-input matrix: $cases cases, $failures failed"
[ "$failures" -eq 0 ]
