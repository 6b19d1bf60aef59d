# The masked family rejects every out-of-range parameter with exit status 2 and one clear line.
include(${CMAKE_CURRENT_LIST_DIR}/expect.cmake)
file(MAKE_DIRECTORY ${WORK_DIR})
# strided
expect_exit(2 "strided: parameter stride=0 is out of range" run --variant strided --set stride=0 --n 64)
expect_exit(2 "strided: parameter stride=2.5 must be an integer" run --variant strided --set stride=2.5 --n 64)
expect_exit(2 "strided: parameter bidirectional=2 must be 0 or 1" run --variant strided --set bidirectional=2 --n 64)
expect_exit(2 "strided: parameter head_pattern=7 is not a valid choice; allowed {split, union, A, B}" run --variant strided --set head_pattern=7 --n 64)
# fixed
expect_exit(2 "fixed: parameter block=0 is out of range" run --variant fixed --set block=0 --n 64)
expect_exit(2 "fixed: parameter summary=0 is out of range" run --variant fixed --set summary=0 --n 64)
expect_exit(2 "fixed: summary c = 9 > block l = 8: choose c ≤ l" run --variant fixed --set block=8 --set summary=9 --n 64)
# longformer
expect_exit(2 "longformer: parameter window=-1 is out of range" run --variant longformer --set window=-1 --n 64)
expect_exit(2 "longformer: parameter dilation=0 is out of range" run --variant longformer --set dilation=0 --n 64)
expect_exit(2 "longformer: global position -3 is negative" run --variant longformer --set global=-3 --n 256)
# a position past the end belongs to longer sequences (a sweep over n): the run skips it and says so
execute_process(COMMAND ${ATTNSCOPE} run --variant longformer --set global=0,300 --n 256 RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err WORKING_DIRECTORY ${WORK_DIR} TIMEOUT 300)
message(STATUS "[case] longformer global=0,300 at n = 256 -> exit ${rc}")
string(FIND "${out}" "global positions 300 lie beyond this sequence (n = 256) and are not used" at)
if(NOT rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "longformer global=0,300 at n = 256: expected exit 0 and a note, got ${rc}\n${out}\n${err}")
endif()
expect_exit(2 "longformer: parameter global='x' is not a finite number" run --variant longformer --set global=1,x --n 64)
# bigbird
expect_exit(2 "bigbird: parameter block=0 is out of range" run --variant bigbird --set block=0 --n 64)
expect_exit(2 "bigbird: parameter block=5000 is out of range" run --variant bigbird --set block=5000 --n 64)
expect_exit(2 "bigbird: window_blocks = 4 is even: choose an odd number" run --variant bigbird --set window_blocks=4 --n 64)
expect_exit(2 "bigbird: parameter global_blocks=-1 is out of range" run --variant bigbird --set global_blocks=-1 --n 64)
expect_exit(2 "bigbird: parameter random_blocks=5000 is out of range" run --variant bigbird --set random_blocks=5000 --n 64)
expect_exit(2 "bigbird: parameter seed=-1 is out of range" run --variant bigbird --set seed=-1 --n 64)
# xl
expect_exit(2 "xl: parameter segment=0 is out of range" run --variant xl --set segment=0 --n 64)
expect_exit(2 "xl: parameter memory=-1 is out of range" run --variant xl --set memory=-1 --n 64)
expect_exit(2 "xl: same_length with memory M = 0 leaves every query without keys: choose M ≥ 1" run --variant xl --set memory=0 --set same_length=1 --n 64)
# and the good paths run: n = 1, window ≥ n, n not a multiple of the block, every member in one call
expect_exit(0 "" run --variant strided,fixed,longformer,bigbird,xl --n 1 --heads 1 --dim 1)
expect_exit(0 "" run --variant longformer,bigbird,xl --set window=5000 --set bigbird.block=64 --n 976 --heads 2 --dim 16)
