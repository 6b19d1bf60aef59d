# Bad options fail with exit 2 before anything is printed on stdout: no table first, then an error.
include(${CMAKE_CURRENT_LIST_DIR}/expect.cmake)
set(tiny ${CMAKE_CURRENT_LIST_DIR}/../golden/tiny_bert)  # a 2-layer model, committed

# --whatif-layer is checked against the model's layers before the input is encoded and the table printed.
expect_quiet_exit(2 "--whatif-layer 2 is out of range: choose 0 to 1 (the model has 2 layers) or all"
                  run --variant full --text "Hello World" --model ${tiny} --whatif-layer 2)
expect_quiet_exit(2 "--whatif-layer 'x' is not a layer index or 'all': choose 0 to 1"
                  run --variant full --text "Hello World" --model ${tiny} --whatif-layer x)
expect_exit(0 "" run --variant full --text "Hello World" --model ${tiny} --whatif-layer 1)
# spectrum runs every variant before its table; sweep checks every curve before the first one.
expect_quiet_exit(2 "needs document boundaries" spectrum --variant topk:mask_mod=document --n 32 --heads 1 --dim 8)
expect_quiet_exit(2 "full has no parameter 'rank' to sweep"
                  sweep --variant svd,full --param rank=4:8:x2 --n 32 --heads 1 --dim 8 --seeds 1)
expect_quiet_exit(2 "bigbird: parameter block=8192 is out of range; allowed [1, 4096]"
                  sweep --variant fixed,bigbird --param block=4:8192:x2048 --n 32 --heads 1 --dim 8 --seeds 1)
