# Dear ImGui (docking) + ImPlot, pinned.
#
# Offline (the default here): scripts/setup.sh unpacks the sources that travel inside the imgui-bundle
# 1.93.0 sdist on PyPI into ${ATTNSCOPE_CACHE}/third_party/imgui_bundle-1.93.0, and we point FetchContent
# at them through FETCHCONTENT_SOURCE_DIR_<NAME>, so nothing is downloaded at configure time.
# Online (a user with internet and no cache): the same declarations fetch the upstream sources that the
# bundle's .gitmodules names: the bundle's imgui fork (branch imgui_bundle, Dear ImGui v1.93.0 docking) and
# its implot fork (branch master, ImPlot 1.1 WIP). Upstream ocornut/imgui tag v1.93.0-docking is the same
# Dear ImGui release; we use none of the fork's additions.
include(FetchContent)

set(ATTNSCOPE_IMGUI_BUNDLE_VERSION 1.93.0)
set(ATTNSCOPE_IMGUI_BUNDLE_DIR "${ATTNSCOPE_CACHE_DIR}/third_party/imgui_bundle-${ATTNSCOPE_IMGUI_BUNDLE_VERSION}"
    CACHE PATH "Unpacked imgui-bundle sdist (scripts/setup.sh)")

if(EXISTS "${ATTNSCOPE_IMGUI_BUNDLE_DIR}/external/imgui/imgui/imgui.h" AND NOT FETCHCONTENT_SOURCE_DIR_IMGUI)
  set(FETCHCONTENT_SOURCE_DIR_IMGUI "${ATTNSCOPE_IMGUI_BUNDLE_DIR}/external/imgui/imgui")
  set(FETCHCONTENT_SOURCE_DIR_IMPLOT "${ATTNSCOPE_IMGUI_BUNDLE_DIR}/external/implot/implot")
  message(STATUS "Dear ImGui + ImPlot: from imgui-bundle ${ATTNSCOPE_IMGUI_BUNDLE_VERSION} in ${ATTNSCOPE_IMGUI_BUNDLE_DIR}")
else()
  message(STATUS "Dear ImGui + ImPlot: not in the cache, FetchContent will download the pinned upstream sources "
                 "(run scripts/setup.sh to work offline)")
endif()

FetchContent_Declare(imgui
  GIT_REPOSITORY https://github.com/pthom/imgui.git
  GIT_TAG imgui_bundle
  GIT_SHALLOW TRUE)
FetchContent_Declare(implot
  GIT_REPOSITORY https://github.com/pthom/implot.git
  GIT_TAG master
  GIT_SHALLOW TRUE)
FetchContent_MakeAvailable(imgui implot)

find_package(PkgConfig REQUIRED)
pkg_check_modules(GLFW3 REQUIRED IMPORTED_TARGET glfw3)
pkg_check_modules(EPOXY REQUIRED IMPORTED_TARGET epoxy)
# Xlib: frame_present.cpp reads the window back to prove the boxes copied to it are the frame drawn.
pkg_check_modules(X11 REQUIRED IMPORTED_TARGET x11)
find_package(OpenGL REQUIRED)

# One static library with Dear ImGui, its GLFW + OpenGL3 backends and ImPlot.
add_library(attnscope_imgui STATIC
  ${imgui_SOURCE_DIR}/imgui.cpp ${imgui_SOURCE_DIR}/imgui_draw.cpp ${imgui_SOURCE_DIR}/imgui_tables.cpp
  ${imgui_SOURCE_DIR}/imgui_widgets.cpp ${imgui_SOURCE_DIR}/imgui_demo.cpp
  ${imgui_SOURCE_DIR}/backends/imgui_impl_glfw.cpp ${imgui_SOURCE_DIR}/backends/imgui_impl_opengl3.cpp
  ${imgui_SOURCE_DIR}/misc/cpp/imgui_stdlib.cpp
  ${implot_SOURCE_DIR}/implot.cpp ${implot_SOURCE_DIR}/implot_items.cpp ${implot_SOURCE_DIR}/implot_demo.cpp)
# The bundle's imgui fork adds a stack layout that its imgui_demo.cpp uses; upstream imgui has no such file.
if(EXISTS ${imgui_SOURCE_DIR}/imgui_stacklayout.cpp)
  target_sources(attnscope_imgui PRIVATE ${imgui_SOURCE_DIR}/imgui_stacklayout.cpp)
endif()
target_include_directories(attnscope_imgui SYSTEM PUBLIC
  ${imgui_SOURCE_DIR} ${imgui_SOURCE_DIR}/backends ${imgui_SOURCE_DIR}/misc/cpp ${implot_SOURCE_DIR})
target_compile_definitions(attnscope_imgui PUBLIC IMGUI_DEFINE_MATH_OPERATORS)
target_compile_options(attnscope_imgui PRIVATE -w)  # third-party code: its warnings are not ours to fix
# ImPlot instantiates every plot function for each numeric type of this list: the default ten made implot_items.cpp
# alone two minutes of a first build. attnscope plots float and double; ImPlot's demo (Debug panel) also plots ImS8,
# int and unsigned int.
target_compile_definitions(attnscope_imgui PRIVATE
  "IMPLOT_CUSTOM_NUMERIC_TYPES=(signed char)(signed int)(unsigned int)(float)(double)")
if(ATTNSCOPE_FUZZ OR ATTNSCOPE_SANITIZE)
  # The fuzzers and sanitizers aim at our code; instrumenting ImGui/ImPlot only costs build time (implot_items.cpp
  # alone took 134 s of the address tree's 17 minutes, minutes under clang with coverage), so the fuzz and sanitizer
  # trees compile them plainly: our calls into them stay instrumented, their insides are not checked.
  set_property(TARGET attnscope_imgui PROPERTY COMPILE_OPTIONS -w)
endif()
target_link_libraries(attnscope_imgui PUBLIC PkgConfig::GLFW3 OpenGL::GL ${CMAKE_DL_LIBS})
set_target_properties(attnscope_imgui PROPERTIES POSITION_INDEPENDENT_CODE ON)
