# ggml's GGUF reader and dequantisers and llama.cpp's tokenizer, pinned.
#
# scripts/setup.sh unpacks the llama.cpp source that the llama-cpp-python 0.3.36 sdist on PyPI carries
# (vendor/llama.cpp, top-level files only) into ${ATTNSCOPE_CACHE}/third_party/llama.cpp-0.3.36. We compile the
# smallest part of it that reads a GGUF file and tokenizes exactly as llama.cpp does:
#   ggml-base (tensor types, dequantisation, gguf.cpp) + the backend registry without any backend, and from libllama
#   the vocabulary (llama-vocab.cpp, unicode*.cpp) with the metadata loader it reads its keys through.
# No compute backend and no model graph is built: the forward pass runs on attnscope's own backend
# (docs/ARCHITECTURE.md, "The decoder"). Compiled without our warnings (third-party code), as C++17.
set(ATTNSCOPE_LLAMA_CPP_VERSION 0.3.36)
if(DEFINED ENV{ATTNSCOPE_LLAMA_CPP_DIR})  # the GPU pack's copy (scripts/gpu-deps-env.sh)
  set(_attnscope_llama_default "$ENV{ATTNSCOPE_LLAMA_CPP_DIR}")
else()
  set(_attnscope_llama_default "${ATTNSCOPE_CACHE_DIR}/third_party/llama.cpp-${ATTNSCOPE_LLAMA_CPP_VERSION}")
endif()
set(ATTNSCOPE_LLAMA_CPP_DIR "${_attnscope_llama_default}"
    CACHE PATH "llama.cpp sources unpacked from the llama-cpp-python sdist (scripts/setup.sh)")
if(NOT EXISTS "${ATTNSCOPE_LLAMA_CPP_DIR}/src/llama-vocab.cpp")
  message(FATAL_ERROR "llama.cpp sources not found in ${ATTNSCOPE_LLAMA_CPP_DIR}: run scripts/setup.sh (it unpacks them "
                      "from the pinned llama-cpp-python ${ATTNSCOPE_LLAMA_CPP_VERSION} sdist), or pass "
                      "-DATTNSCOPE_LLAMA_CPP_DIR=<folder>")
endif()
message(STATUS "ggml + llama.cpp tokenizer: ${ATTNSCOPE_LLAMA_CPP_DIR}")

set(_llama "${ATTNSCOPE_LLAMA_CPP_DIR}")
set(_llama_generated "${CMAKE_BINARY_DIR}/generated/llama")
set(GGML_VERSION "llama-cpp-python-${ATTNSCOPE_LLAMA_CPP_VERSION}")
set(GGML_BUILD_COMMIT "pinned")
configure_file("${_llama}/ggml/src/ggml-version.h.in" "${_llama_generated}/ggml-version.h" @ONLY)

add_library(attnscope_llama STATIC
  ${_llama}/ggml/src/ggml.c ${_llama}/ggml/src/ggml.cpp ${_llama}/ggml/src/ggml-alloc.c
  ${_llama}/ggml/src/ggml-quants.c ${_llama}/ggml/src/ggml-threading.cpp ${_llama}/ggml/src/gguf.cpp
  ${_llama}/ggml/src/ggml-backend.cpp ${_llama}/ggml/src/ggml-backend-meta.cpp ${_llama}/ggml/src/ggml-backend-reg.cpp
  ${_llama}/ggml/src/ggml-backend-dl.cpp
  ${_llama}/src/llama-vocab.cpp ${_llama}/src/unicode.cpp ${_llama}/src/unicode-data.cpp
  ${_llama}/src/llama-model-loader.cpp ${_llama}/src/llama-arch.cpp ${_llama}/src/llama-impl.cpp
  ${_llama}/src/llama-mmap.cpp ${_llama}/src/llama-hparams.cpp
  ${PROJECT_SOURCE_DIR}/cmake/llama_split_paths.cpp)
set_target_properties(attnscope_llama PROPERTIES CXX_STANDARD 17 C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)
target_compile_options(attnscope_llama PRIVATE -w)
# Unwind tables in the C files too: core/data/ggml_messages.cpp turns a failed GGML_ASSERT into an Error thrown from
# ggml_abort's callback, through ggml.c's frames, instead of an abort() of the app.
target_compile_options(attnscope_llama PRIVATE $<$<COMPILE_LANGUAGE:C>:-fexceptions>)
target_compile_definitions(attnscope_llama PRIVATE _GNU_SOURCE _XOPEN_SOURCE=600)
target_include_directories(attnscope_llama PRIVATE ${_llama_generated} ${_llama}/ggml/src ${_llama}/src)
# SYSTEM: our -Wall -Wextra -Wpedantic -Werror must not judge llama.cpp's headers.
target_include_directories(attnscope_llama SYSTEM PUBLIC ${_llama}/include ${_llama}/ggml/include ${_llama}/src)
target_link_libraries(attnscope_llama PUBLIC Threads::Threads ${CMAKE_DL_LIBS})
if(ATTNSCOPE_SANITIZE MATCHES "undefined")
  # ggml's GGUF reader reads a file's type fields straight into its enums (gguf_type, ggml_type) and checks the value on
  # the next line; UBSan's enum check reports the load itself (fuzz target gguf, docs/RELIABILITY.md). The value is never
  # used unchecked, so only that one check is off, and only for this third-party library.
  target_compile_options(attnscope_llama PRIVATE -fno-sanitize=enum)
endif()
