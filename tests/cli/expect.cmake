# expect_exit(<status> <stderr-substring> ARGS...): runs ${ATTNSCOPE} ARGS and fails unless the exit status
# and a line of stderr match. Prints each case so a failure says which one; leaves stdout in expect_stdout.
function(expect_exit status pattern)
  execute_process(COMMAND ${ATTNSCOPE} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORK_DIR} TIMEOUT 300)
  set(expect_stdout "${out}" PARENT_SCOPE)
  string(REPLACE ";" " " args "${ARGN}")
  message(STATUS "[case] attnscope ${args} -> exit ${rc}: ${err}")
  if(NOT rc STREQUAL "${status}")
    message(FATAL_ERROR "attnscope ${args}: exit status ${rc}, expected ${status}\nstdout: ${out}\nstderr: ${err}")
  endif()
  string(FIND "${err}" "${pattern}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "attnscope ${args}: stderr lacks '${pattern}'\nstderr: ${err}")
  endif()
  if(NOT status EQUAL 0)
    string(REGEX MATCHALL "\n" lines "${err}")
    list(LENGTH lines count)
    if(count GREATER 1)
      message(FATAL_ERROR "attnscope ${args}: expected one line on stderr, got ${count}:\n${err}")
    endif()
  endif()
endfunction()

# expect_quiet_exit(<status> <stderr-substring> ARGS...): expect_exit, and nothing on stdout: a bad option must
# fail before any result is printed, not after a table a script might take for a result.
function(expect_quiet_exit status pattern)
  expect_exit(${status} "${pattern}" ${ARGN})
  if(NOT expect_stdout STREQUAL "")
    string(REPLACE ";" " " args "${ARGN}")
    message(FATAL_ERROR "attnscope ${args}: printed to stdout before failing:\n${expect_stdout}")
  endif()
endfunction()
file(MAKE_DIRECTORY ${WORK_DIR})
