# Three identical `attnscope errmap` runs mark the same Pareto front (issue 34: w = 16 was on it once in three):
# every point is timed in interleaved rounds and, on time, leaves the front only where the spreads separate.
# The CSV carries the spread (time_min_ms ≤ time_ms ≤ time_max_ms over `repeats` runs) and --repeats is honoured.
# The points differ in cost by far more than a loaded machine's noise (n = 2048: w = 32, 128, 512 about 3, 7 and
# 15 ms, flash 45 ms), so the front has one right answer, every point on it: each window is cheaper and less exact
# than the next, flash exact. Points whose true times lie within the noise (w = 8 against w = 32 at n = 512, both
# bound by overhead, w = 8 about 25% slower) are rightly separated by a calm run and not by a loaded one, so
# they cannot show whether identical runs agree; the dominance rule itself is tested in tests/unit/test_error_cost.cpp.
include(${CMAKE_CURRENT_LIST_DIR}/expect.cmake)
file(MAKE_DIRECTORY ${WORK_DIR})
set(args errmap --variant longformer,flash --param window=32:512:x4 --data gaussian --n 2048 --heads 4 --dim 64
         --seed 1)

# One run's front: "instance=pareto" per row, in the CSV's order (cheapest first, so sorted by instance here).
function(errmap_front run out_var)
  set(csv ${WORK_DIR}/errmap_front_${run}.csv)
  file(REMOVE ${csv})
  expect_exit(0 "" ${args} --csv ${csv})
  file(STRINGS ${csv} rows)
  list(POP_FRONT rows header)
  if(NOT header MATCHES "^variant,instance,time_ms,time_min_ms,time_max_ms,repeats,")
    message(FATAL_ERROR "errmap --csv header lacks the spread columns: ${header}")
  endif()
  set(front "")
  foreach(row IN LISTS rows)
    # variant,"instance",time_ms,time_min_ms,time_max_ms,repeats,time_clock,wall_ms,flops,peak_bytes,rel,mass,emb,pareto
    if(NOT row MATCHES "^[^,]+,\"([^\"]+)\",([^,]+),([^,]+),([^,]+),([0-9]+),[^,]*,.*,([01])$")
      message(FATAL_ERROR "errmap --csv row not understood: ${row}")
    endif()
    set(instance "${CMAKE_MATCH_1}")
    set(pareto "${CMAKE_MATCH_6}")
    if(NOT CMAKE_MATCH_5 EQUAL 5)
      message(FATAL_ERROR "${instance}: ${CMAKE_MATCH_5} timed runs, the default is 5")
    endif()
    if(CMAKE_MATCH_3 GREATER CMAKE_MATCH_2 OR CMAKE_MATCH_2 GREATER CMAKE_MATCH_4)
      message(FATAL_ERROR "${instance}: median ${CMAKE_MATCH_2} outside its spread ${CMAKE_MATCH_3}..${CMAKE_MATCH_4}")
    endif()
    list(APPEND front "${instance}=${pareto}")
  endforeach()
  list(SORT front)
  set(${out_var} "${front}" PARENT_SCOPE)
endfunction()

errmap_front(1 first)
set(expected "Flash=1;Longformer w = 128=1;Longformer w = 32=1;Longformer w = 512=1")
if(NOT first STREQUAL expected)
  message(FATAL_ERROR "errmap front: expected ${expected} (longformer at w = 32, 128, 512 and flash, each on it), "
                      "got ${first}")
endif()
foreach(run 2 3)
  errmap_front(${run} again)
  message(STATUS "run ${run}: ${again}")
  if(NOT again STREQUAL first)
    message(FATAL_ERROR "identical errmap runs marked different fronts:\nrun 1: ${first}\nrun ${run}: ${again}")
  endif()
endforeach()
message(STATUS "front of all three runs: ${first}")

# --repeats reaches the JSON, with the spread of every point.
set(json ${WORK_DIR}/errmap_front.json)
expect_exit(0 "" errmap --variant longformer,full --data gaussian --n 128 --heads 2 --dim 16 --repeats 3 --json ${json})
file(READ ${json} text)
string(JSON repeats GET "${text}" points 0 repeats)
string(JSON lo GET "${text}" points 0 time_min_ms)
string(JSON hi GET "${text}" points 0 time_max_ms)
if(NOT repeats EQUAL 3 OR lo GREATER hi)
  message(FATAL_ERROR "errmap --repeats 3 --json: repeats ${repeats}, spread ${lo}..${hi}")
endif()
expect_quiet_exit(2 "at least 1 timed run" errmap --variant full --n 64 --repeats 0)
