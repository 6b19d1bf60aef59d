# `attnscope gui --lesson NAME`: an unknown lesson exits 2 with one line that lists every lesson id,
# before any window opens (so this case needs no display).
include(${CMAKE_CURRENT_LIST_DIR}/expect.cmake)
expect_exit(2 "unknown lesson 'nosuch'; lessons: " gui --lesson nosuch --screenshot ${WORK_DIR}/never.png)
execute_process(COMMAND ${ATTNSCOPE} gui --lesson nosuch --screenshot ${WORK_DIR}/never.png ERROR_VARIABLE err
                OUTPUT_QUIET WORKING_DIRECTORY ${WORK_DIR} TIMEOUT 60)
file(GLOB lesson_files ${CMAKE_CURRENT_LIST_DIR}/../../assets/lessons/*.json)
list(LENGTH lesson_files count)
if(count LESS 1)
  message(FATAL_ERROR "no lesson files found next to the test")
endif()
foreach(f IN LISTS lesson_files)
  get_filename_component(id ${f} NAME_WE)
  string(FIND "${err}" "${id}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "gui --lesson nosuch: the error line does not list lesson '${id}':\n${err}")
  endif()
endforeach()
message(STATUS "[case] the error line lists all ${count} lesson ids")
if(EXISTS ${WORK_DIR}/never.png)
  message(FATAL_ERROR "gui --lesson nosuch wrote a screenshot: it must fail before opening a window")
endif()
# The sweep metric the GUI offers in text mode is refused in words by the CLI without text input.
expect_exit(2 "--metric embedding_cosine runs a text model: add --text or --text-file" sweep --variant performer --param features=16:32:x2
            --metric embedding_cosine --n 32)
