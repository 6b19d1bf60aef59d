# Text and tensor inputs of `attnscope run`: errors exit 2 with one line; text runs write tokens,
# token ids and the what-if cosine into the JSON. Cases that need the installed model print [skip] and are
# reported as skipped by ctest when it is absent (scripts/setup.sh installs it).
include(${CMAKE_CURRENT_LIST_DIR}/expect.cmake)
file(MAKE_DIRECTORY ${WORK_DIR})

expect_exit(2 "no model folder at '/nonexistent/model': run scripts/setup.sh" run --variant full --text "hello" --model /nonexistent/model)
file(WRITE ${WORK_DIR}/bad.safetensors "abc")
expect_exit(2 "is truncated: 3 bytes, fewer than the 8-byte header length" run --variant full --tensors ${WORK_DIR}/bad.safetensors)
expect_exit(2 "does not exist: pass a .safetensors file or a folder" run --variant full --tensors ${WORK_DIR}/none.safetensors)
file(MAKE_DIRECTORY ${WORK_DIR}/empty_tensors)
expect_exit(2 "the folder has no q.npy" run --variant full --tensors ${WORK_DIR}/empty_tensors)
expect_exit(2 "--tensors and text input both given" run --variant full --text "a" --tensors ${WORK_DIR}/bad.safetensors)
expect_exit(2 "--whatif-layer runs variants inside the text model" run --variant full --n 16 --whatif-layer all)
expect_exit(2 "cannot read --text-file" run --variant full --text-file ${WORK_DIR}/no-such-file.txt)
expect_exit(2 "--layer, --head, --model and --truncate apply to text input" run --variant full --n 16 --layer 2)

# A committed tiny BERT folder (tests/golden/tiny_bert) through --model: cased tokens reach the JSON.
set(tiny_json ${WORK_DIR}/tiny.json)
file(REMOVE ${tiny_json})
execute_process(COMMAND ${ATTNSCOPE} run --variant full --text "Hello World" --model ${CMAKE_CURRENT_LIST_DIR}/../golden/tiny_bert
                --layer 1 --json ${tiny_json} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tiny BERT run failed (${rc}): ${err}")
endif()
file(READ ${tiny_json} tiny_text)
string(JSON tiny_tok GET "${tiny_text}" input tokens 1)
string(JSON tiny_heads GET "${tiny_text}" input heads)
string(JSON tiny_dim GET "${tiny_text}" input dim)
if(NOT tiny_tok STREQUAL "Hello" OR NOT tiny_heads EQUAL 2 OR NOT tiny_dim EQUAL 8)
  message(FATAL_ERROR "tiny BERT JSON: tokens[1]=${tiny_tok} heads=${tiny_heads} dim=${tiny_dim}")
endif()
# A text with no word would attend over [CLS] and [SEP] alone: refused, like any input with nothing in it
# (whitespace here: cmake drops an empty argument; the matrix runs the empty string itself).
expect_exit(2 "the text is empty" run --variant full --text " " --model ${CMAKE_CURRENT_LIST_DIR}/../golden/tiny_bert)
string(REPEAT "a " 70 over_tiny)
expect_exit(2 "the text has 72 tokens but the model takes at most 64" run --variant full --text "${over_tiny}"
            --model ${CMAKE_CURRENT_LIST_DIR}/../golden/tiny_bert)

# A llama GGUF of one's own (tests/golden/tiny_llama: 2 layers, 4 query heads sharing 2 KV heads): variants run causal
# by default on a decoder's text, an explicit causal=0 still wins, and bad files exit 2 with one line.
set(tiny_llama ${CMAKE_CURRENT_LIST_DIR}/../golden/tiny_llama)
set(llama_json ${WORK_DIR}/tiny_llama.json)
file(REMOVE ${llama_json})
execute_process(COMMAND ${ATTNSCOPE} run --variant full,longformer:causal=0,linformer:k=4 --text "The quick brown fox."
                --model ${tiny_llama}/tiny-llama-mixed.gguf --layer 1 --json ${llama_json}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tiny llama run failed (${rc}): ${err}")
endif()
string(FIND "${out}" "4 query heads share 2 KV heads" gqa_line)
string(FIND "${out}" "[T][he][ ][q][u][i][c][k][ b]" pieces)
if(gqa_line EQUAL -1 OR pieces EQUAL -1)
  message(FATAL_ERROR "the text summary should name the KV sharing and show each BPE piece in brackets:\n${out}")
endif()
file(READ ${llama_json} llama_text)
string(JSON llama_heads GET "${llama_text}" input heads)
string(JSON full_causal GET "${llama_text}" results 0 params causal)
string(JSON longformer_causal GET "${llama_text}" results 1 params causal)
string(JSON llama_tok1 GET "${llama_text}" input tokens 1)
if(NOT llama_heads EQUAL 4 OR NOT full_causal EQUAL 1 OR NOT longformer_causal EQUAL 0 OR NOT llama_tok1 STREQUAL "he")
  message(FATAL_ERROR "tiny llama JSON: heads=${llama_heads} full causal=${full_causal} longformer causal (set 0)="
                      "${longformer_causal} tokens[1]=${llama_tok1}")
endif()
expect_exit(2 "is not a GGUF file (it does not start with the bytes 'GGUF')" run --variant full --text "a"
            --model ${tiny_llama}/not-gguf.gguf)
expect_exit(2 "is truncated: tensor 'blk.1.ffn_up.weight' ends at byte" run --variant full --text "a"
            --model ${tiny_llama}/truncated.gguf)
expect_exit(2 "failed to read key-value pairs): the file is truncated or corrupt" run --variant full --text "a"
            --model ${tiny_llama}/header-only.gguf)
expect_exit(2 "a tensor is stored in a type ggml does not read; attnscope reads F32, F16" run --variant full --text "a"
            --model ${tiny_llama}/bad-tensor-type.gguf)
expect_exit(2 "is a 'gpt2' model: attnscope runs llama-architecture decoders" run --variant full --text "a"
            --model ${tiny_llama}/other-arch.gguf)
expect_exit(2 "has no tensor 'blk.1.ffn_down.weight'" run --variant full --text "a" --model ${tiny_llama}/missing-tensor.gguf)
expect_exit(2 "has no vocabulary" run --variant full --text "a" --model ${tiny_llama}/no-vocab.gguf)
expect_exit(2 "no GGUF model file at '/nonexistent/x.gguf'" run --variant full --text "a" --model /nonexistent/x.gguf)
string(REPEAT "word " 40 over_context)
expect_exit(2 "tokens but tiny-llama-mixed takes at most 64 (its context): shorten it or truncate it (--truncate)"
            run --variant full --text "${over_context}" --model ${tiny_llama}/tiny-llama-mixed.gguf)
# A decoder's what-if is its perplexity: causal full in both layers is the exact model; a window of 2 keys is not.
set(ppl_json ${WORK_DIR}/decoder_whatif.json)
set(ppl_csv ${WORK_DIR}/decoder_whatif.csv)
file(REMOVE ${ppl_json} ${ppl_csv})
execute_process(COMMAND ${ATTNSCOPE} run --variant full,sink:window=2:sinks=1 --text "ab cd ef gh ab cd ef gh ab cd"
                --whatif-layer 0-1 --json ${ppl_json} --metrics-csv ${ppl_csv} --model ${tiny_llama}/tiny-llama-mixed.gguf
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "what-if through the decoder: attention of all 2 layers replaced")
  message(FATAL_ERROR "decoder what-if failed (${rc}): ${err}\n${out}")
endif()
file(READ ${ppl_json} ppl_text)
string(JSON full_top1 GET "${ppl_text}" results 0 whatif top1_agreement)
string(JSON full_kl GET "${ppl_text}" results 0 whatif mean_kl)
string(JSON sink_kl GET "${ppl_text}" results 1 whatif mean_kl)
string(JSON nll_len LENGTH "${ppl_text}" results 1 whatif nll)
string(JSON n_tokens LENGTH "${ppl_text}" input token_ids)
math(EXPR predicted "${n_tokens} - 1")
if(NOT full_top1 EQUAL 1 OR NOT full_kl LESS 0.000001 OR NOT sink_kl GREATER 0.000001 OR NOT nll_len EQUAL predicted)
  message(FATAL_ERROR "decoder what-if JSON: full top-1 ${full_top1}, KL ${full_kl}; sink KL ${sink_kl}; "
                      "${nll_len} NLL values for ${n_tokens} tokens")
endif()
file(STRINGS ${ppl_csv} csv_header LIMIT_COUNT 1)
if(NOT csv_header MATCHES "whatif_layers,perplexity,exact_perplexity,delta_perplexity,mean_kl,top1_agreement")
  message(FATAL_ERROR "--metrics-csv lacks the what-if columns: ${csv_header}")
endif()
message(STATUS "[case] decoder what-if, layers 0-1: full is the exact model (KL ${full_kl}), sink w = 2 moves it (KL ${sink_kl})")

# The installed decoder by name (scripts/setup.sh): 9 query heads, its real first-token sink in a deep layer.
if(DEFINED ENV{ATTNSCOPE_CACHE})
  set(smollm2 "$ENV{ATTNSCOPE_CACHE}/models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf")
else()
  set(smollm2 "$ENV{HOME}/.cache/attnscope/models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf")
endif()
if(EXISTS ${smollm2})
  set(smol_json ${WORK_DIR}/smollm2.json)
  file(REMOVE ${smol_json})
  execute_process(COMMAND ${ATTNSCOPE} run --variant full,sink:window=8+sinks=1 --model smollm2 --layer 20 --head 4
                  --text "The capital of France is Paris. The capital of Germany is Berlin. The capital of Italy is Rome."
                  --json ${smol_json} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "SmolLM2 run failed (${rc}): ${err}")
  endif()
  file(READ ${smol_json} smol_text)
  string(JSON smol_n GET "${smol_text}" input n)
  string(JSON smol_causal GET "${smol_text}" results 0 params causal)
  string(JSON smol_recall GET "${smol_text}" results 1 metrics mass_recall)
  message(STATUS "SmolLM2 layer 20 head 4: n = ${smol_n}, sink (1 sink + 8 recent keys) keeps ${smol_recall} of the mass")
  # 21 tokens; the first token alone holds most of each row here, so one sink and a short window keep almost all of it.
  if(NOT smol_n EQUAL 21 OR NOT smol_causal EQUAL 1 OR smol_recall LESS 0.9)
    message(FATAL_ERROR "SmolLM2 JSON: n=${smol_n} causal=${smol_causal} sink mass_recall=${smol_recall}")
  endif()
else()
  message(STATUS "[skip] decoder cases: SmolLM2-135M-Instruct is not installed at ${smollm2}; run scripts/setup.sh")
endif()

if(DEFINED ENV{ATTNSCOPE_MODEL_DIR})
  set(model "$ENV{ATTNSCOPE_MODEL_DIR}")
elseif(DEFINED ENV{ATTNSCOPE_CACHE})
  set(model "$ENV{ATTNSCOPE_CACHE}/models/all-MiniLM-L6-v2")
else()
  set(model "$ENV{HOME}/.cache/attnscope/models/all-MiniLM-L6-v2")
endif()
if(NOT EXISTS ${model}/model.safetensors)
  message(STATUS "[skip] model cases: all-MiniLM-L6-v2 is not installed at ${model}; run scripts/setup.sh")
  return()
endif()
string(REPEAT "word " 600 long_text)
expect_exit(2 "the text has 602 tokens but the model takes at most 512: shorten it or truncate it (--truncate)"
            run --variant full --text "${long_text}")
expect_exit(2 "layer 9 is out of range: the model has layers 0 to 5" run --variant full --text "hello" --layer 9)
expect_quiet_exit(2 "--whatif-layer 7 is out of range: choose 0 to 5 (the model has 6 layers) or all"
                  run --variant full --text "hello" --whatif-layer 7)
expect_exit(2 "--whatif-layer 'x' is not a layer index or 'all'" run --variant full --text "hello" --whatif-layer x)

set(json ${WORK_DIR}/text.json)
file(REMOVE ${json})
execute_process(COMMAND ${ATTNSCOPE} run --variant full,flash --text "Hello, attention!" --layer 2 --head 3
                --whatif-layer all --json ${json} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "text run failed (${rc}): ${err}")
endif()
file(READ ${json} json_text)
string(JSON source GET "${json_text}" input source)
string(JSON n GET "${json_text}" input n)
string(JSON heads GET "${json_text}" input heads)
string(JSON tok1 GET "${json_text}" input tokens 1)
string(JSON id0 GET "${json_text}" input token_ids 0)
string(JSON idn LENGTH "${json_text}" input token_ids)
string(JSON cos GET "${json_text}" results 0 whatif embedding_cosine)
string(JSON wl GET "${json_text}" results 1 whatif layer)
# [CLS] hello , attention ! [SEP]
if(NOT source STREQUAL "text" OR NOT n EQUAL 6 OR NOT heads EQUAL 1 OR NOT tok1 STREQUAL "hello" OR NOT id0 EQUAL 101
   OR NOT idn EQUAL 6 OR NOT wl STREQUAL "all")
  message(FATAL_ERROR "unexpected text JSON: source=${source} n=${n} heads=${heads} tokens[1]=${tok1} ids[0]=${id0} "
                      "len=${idn} whatif.layer=${wl}")
endif()
if(cos LESS 0.999999)
  message(FATAL_ERROR "what-if with full at every layer should give cosine 1, got ${cos}")
endif()
