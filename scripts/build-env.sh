# Sourced by run-app.sh and run-tests.sh: puts nvcc on PATH when the CUDA toolkit is in its default place, and
# compiles through ccache when it is installed (setup.sh installs it), with paths made relative to the checkout
# so a fresh clone elsewhere still hits the cache. Sets launcher_flags for cmake.
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then export PATH="/usr/local/cuda/bin:$PATH"; fi
launcher_flags=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
  launcher_flags=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
                  -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
