# Third-party dependencies. Debian packages are found with find_package/pkg-config; Dear ImGui and ImPlot
# come from the pinned imgui-bundle sdist unpacked by scripts/setup.sh (see ImGuiDeps.cmake).

find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(FFTW3F REQUIRED IMPORTED_TARGET fftw3f)

# LAPACKE + OpenBLAS for exact SVD (spectra, the `svd` variant).
find_path(LAPACKE_INCLUDE_DIR lapacke.h REQUIRED)
find_library(LAPACKE_LIBRARY lapacke REQUIRED)
find_library(OPENBLAS_LIBRARY NAMES openblas REQUIRED)
add_library(attnscope_lapacke INTERFACE)
target_include_directories(attnscope_lapacke INTERFACE ${LAPACKE_INCLUDE_DIR})
target_link_libraries(attnscope_lapacke INTERFACE ${LAPACKE_LIBRARY} ${OPENBLAS_LIBRARY})

find_path(STB_INCLUDE_DIR stb_image_write.h PATH_SUFFIXES stb REQUIRED)
add_library(attnscope_stb INTERFACE)
target_include_directories(attnscope_stb SYSTEM INTERFACE ${STB_INCLUDE_DIR})

# What scripts/setup.sh unpacks lives under one cache folder.
if(DEFINED ENV{ATTNSCOPE_CACHE})
  set(ATTNSCOPE_CACHE_DIR "$ENV{ATTNSCOPE_CACHE}")
else()
  set(ATTNSCOPE_CACHE_DIR "$ENV{HOME}/.cache/attnscope")
endif()

include(LlamaVocab)
if(ATTNSCOPE_GUI)
  include(ImGuiDeps)
endif()
if(ATTNSCOPE_CUDA)
  # CUTLASS's headers and its fused multi-head attention (examples/41), from the pinned nvidia-cutlass wheel.
  set(ATTNSCOPE_CUTLASS_VERSION 4.2.0.0)
  if(DEFINED ENV{ATTNSCOPE_CUTLASS_DIR})
    set(_attnscope_cutlass "$ENV{ATTNSCOPE_CUTLASS_DIR}")
  else()
    set(_attnscope_cutlass "${ATTNSCOPE_CACHE_DIR}/third_party/cutlass-${ATTNSCOPE_CUTLASS_VERSION}")
  endif()
  set(ATTNSCOPE_CUTLASS_DIR "${_attnscope_cutlass}" CACHE PATH "Unpacked nvidia-cutlass wheel (scripts/setup.sh)")
  if(NOT EXISTS "${ATTNSCOPE_CUTLASS_DIR}/fused_attention/kernel_forward.h")
    message(FATAL_ERROR "CUTLASS ${ATTNSCOPE_CUTLASS_VERSION} not found in ${ATTNSCOPE_CUTLASS_DIR}: run scripts/setup.sh "
                        "(it unpacks the pinned nvidia-cutlass wheel there), or pass -DATTNSCOPE_CUTLASS_DIR=<folder>")
  endif()
  message(STATUS "CUTLASS: ${ATTNSCOPE_CUTLASS_DIR}")
endif()
if(ATTNSCOPE_TESTS)
  find_package(GTest REQUIRED)
endif()
if(ATTNSCOPE_BENCH)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    message(STATUS "Google Benchmark not found: micro-benchmarks are not built")
    set(ATTNSCOPE_BENCH OFF)
  endif()
endif()
