// attnscope tests — the few cuBLAS types that core/backend/cuda/common.cuh and gemm.cuh name, for the CPU emulation of
// the kernels (see cuda_runtime.h beside this file). No cuBLAS function exists here.
#pragma once

using cublasHandle_t = struct cublasContext*;
enum cublasStatus_t { CUBLAS_STATUS_SUCCESS = 0 };
enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
