# Precompiled headers: the third-party and standard headers that nearly every file of a target parses. Parsing Eigen,
# nlohmann/json and the standard containers took about half of a core file's compile (3 of 6–7 s at -O3), the same
# again in every one of ~300 files; a target parses them once instead. Only headers that do not change with the
# project's own code go here, so an edit to a project header still recompiles just the files that include it.
# ccache caches compiles that use them (scripts/build-env.sh sets the sloppiness it needs).
set(ATTNSCOPE_PCH_COMMON
    <algorithm> <array> <atomic> <chrono> <cmath> <cstdint> <cstdio> <cstring> <filesystem> <fstream> <functional>
    <map> <memory> <mutex> <optional> <set> <sstream> <string> <thread> <utility> <vector>
    <Eigen/Dense> <nlohmann/json.hpp>)

# attnscope_precompile(TARGET [HEADER ...]): TARGET's files see ATTNSCOPE_PCH_COMMON and the extra headers
# precompiled. Files that must read <immintrin.h> under their own diagnostic pragmas first (GCC bug 105593: the
# vector kernels through core/backend/cpu/simd/vec.h, and cpu_feature_maps.cpp) opt out with
# set_source_files_properties(FILE PROPERTIES SKIP_PRECOMPILE_HEADERS ON) beside the target.
# (GCC 12 reports false -Warray-bounds and -Wstringop-overflow inside libstdc++'s std::string once its headers come
# from a precompiled header: the top CMakeLists.txt turns those two off for GCC < 13.)
function(attnscope_precompile target)
  target_precompile_headers(${target} PRIVATE ${ATTNSCOPE_PCH_COMMON} ${ARGN})
endfunction()
