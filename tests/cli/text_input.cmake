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
expect_exit(2 "--whatif-layer runs variants inside the encoder" run --variant full --n 16 --whatif-layer all)
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
