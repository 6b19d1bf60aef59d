# Sourced by the build scripts: puts nvcc on PATH when the CUDA toolkit is in its default place, and compiles through
# ccache when it is installed (setup.sh installs it), with paths made relative to the checkout so a fresh clone
# elsewhere still hits the cache, and with the sloppiness ccache needs to cache files built with precompiled headers
# (cmake/Precompiled.cmake). Sets launcher_flags for cmake, and defines generator_flags_for.
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then export PATH="/usr/local/cuda/bin:$PATH"; fi
launcher_flags=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  launcher_flags=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
                  -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi

# generator_flags_for BUILD_DIR: sets generator_flags to -G Ninja for a build folder not configured yet when ninja is
# installed (setup.sh installs it): one job graph over every target, so a link or a slow file no longer holds the
# other core idle between make's per-target steps. A folder already configured keeps its generator.
generator_flags_for() {
  generator_flags=()
  if command -v ninja >/dev/null && [ ! -f "$1/CMakeCache.txt" ]; then generator_flags=(-G Ninja); fi
}
