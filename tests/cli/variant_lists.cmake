# List parameters inside --variant (boundaries, global): the list keeps its commas wherever it stands in an
# instance, the next instance still starts after a comma, and the forms the errors suggest run as written.
include(${CMAKE_CURRENT_LIST_DIR}/expect.cmake)
set(input --data gaussian --n 48 --heads 2 --dim 16)

expect_exit(0 "" run --variant "topk:k=6:mask_mod=document:boundaries=13,30" ${input})
# A list followed by more parameters of the same instance, then another instance.
set(json ${WORK_DIR}/variant_lists.json)
file(REMOVE ${json})
expect_exit(0 "" run --variant "topk:mask_mod=document:boundaries=13,30:k=6,full" ${input} --json ${json})
file(READ ${json} text)
string(JSON count LENGTH "${text}" results)
string(JSON second GET "${text}" results 1 variant)
string(JSON k GET "${text}" results 0 params k)
string(JSON b0 GET "${text}" results 0 params boundaries 0)
string(JSON b1 GET "${text}" results 0 params boundaries 1)
if(NOT count EQUAL 2 OR NOT second STREQUAL "full" OR NOT k EQUAL 6 OR NOT b0 EQUAL 13 OR NOT b1 EQUAL 30)
  message(FATAL_ERROR "topk:mask_mod=document:boundaries=13,30:k=6,full read as: ${text}")
endif()

# The boundaries form the missing-boundaries error suggests works pasted inside --variant, mid-spec and before
# another instance (n = 300 holds its example positions).
execute_process(COMMAND ${ATTNSCOPE} run --variant topk:mask_mod=document --n 300 --heads 1 --dim 8
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCH "e\\.g\\. (boundaries=[0-9,]+)" found "${err}")
if(NOT rc EQUAL 2 OR found STREQUAL "")
  message(FATAL_ERROR "expected the missing-boundaries error with an example, got exit ${rc}: ${err}")
endif()
expect_exit(0 "" run --variant "topk:mask_mod=document:${CMAKE_MATCH_1}:k=6,full" --n 300 --heads 1 --dim 8)

# A number after a one-value parameter: the error says why and how to write two instances.
expect_quiet_exit(2 "'7' follows k=6, but k takes one value; only list parameters (boundaries) take comma-separated numbers. For another instance write its id again, e.g. topk:k=6,topk:k=7"
                  run --variant "topk:k=6,7" ${input})
expect_quiet_exit(2 "'13' is a number where a variant id belongs" run --variant "full,13" ${input})
# --help states the rule.
execute_process(COMMAND ${ATTNSCOPE} run --help OUTPUT_VARIABLE help)
string(FIND "${help}" "numbers after a comma continue the list parameter" at)
if(at EQUAL -1)
  message(FATAL_ERROR "run --help does not say how a list is written inside --variant:\n${help}")
endif()

# Terms joined by '+' (a mask composed from predicates), a bare word as a switch, and a modifier parameter that
# switches its modifier on — inside --variant and through --set alike.
foreach(form "compose:window=8+sinks=2+prefix=20" "sink:prefix=20" "sink;--set;prefix=20")
  string(REPLACE ";" " " shown "${form}")
  set(json ${WORK_DIR}/variant_terms.json)
  file(REMOVE ${json})
  expect_exit(0 "" run --variant ${form} ${input} --json ${json})
  file(READ ${json} text)
  string(JSON got_mask GET "${text}" results 0 params mask_mod)
  string(JSON got_prefix GET "${text}" results 0 params prefix)
  if(NOT got_mask STREQUAL "prefix" OR NOT got_prefix MATCHES "^20(\\.0)?$")
    message(FATAL_ERROR "${shown}: expected the prefix-LM mask with p = 20, read mask_mod=${got_mask} prefix=${got_prefix}")
  endif()
endforeach()
file(REMOVE ${json})
expect_exit(0 "" run --variant "compose:window=8+sinks=2+causal+document:boundaries=0,20" ${input} --json ${json})
file(READ ${json} text)
string(JSON got_mask GET "${text}" results 0 params mask_mod)
string(JSON got_window GET "${text}" results 0 params window)
string(JSON got_causal GET "${text}" results 0 params causal)
if(NOT got_mask STREQUAL "document" OR NOT got_window MATCHES "^8(\\.0)?$" OR NOT got_causal)
  message(FATAL_ERROR "compose:window=8+sinks=2+causal+document read as: ${text}")
endif()
expect_quiet_exit(2 "'diagonal' is not NAME=VALUE (e.g. --variant svd:rank=8), nor a switch of compose"
                  run --variant "compose:window=8+diagonal" ${input})
