# Traces llama.cpp's tools with libggmlviz without editing a file of
# llama.cpp, as scripts/build-llama-tools.sh builds them:
#
#     cmake -S llama.cpp -B build -Dggmlviz_DIR=PREFIX/lib/cmake/ggmlviz \
#           -DCMAKE_PROJECT_INCLUDE=.../contrib/llama.cpp/ggmlviz.cmake
#
# or, as proposed upstream (llama-cpp-ggmlviz.patch), from llama.cpp's own
# CMakeLists.txt under option(LLAMA_GGMLVIZ). It finds an installed
# libggmlviz (find_package(ggmlviz 0.2)), and when the top-level
# CMakeLists.txt is done (cmake_language(DEFER)), gives every target built
# from common/, tools/ and examples/ the header ggmlviz-llama-tools.h forced
# into its C++ compilation, and links the wrappers it calls
# (ggmlviz-llama-tools.cpp, a static library of its own). libllama and GGML
# are compiled as they are. Every llama_decode() and llama_encode() of
# those targets, wherever upstream moves or adds them, is then a step of
# the trace when GGML_VIZ_OUTPUT asks for one.
#
# SPDX-License-Identifier: MIT

# CMAKE_PROJECT_INCLUDE runs after every project(): only the top one (not ggml's)
if(NOT CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR OR DEFINED _GGMLVIZ_LLAMA_DONE)
  return()
endif()
set(_GGMLVIZ_LLAMA_DONE ON)
if(CMAKE_VERSION VERSION_LESS 3.19)
  message(FATAL_ERROR "ggmlviz.cmake: CMake 3.19 or newer is needed (cmake_language(DEFER)); this is ${CMAKE_VERSION}")
endif()

find_package(ggmlviz 0.2 REQUIRED)
set(GGMLVIZ_LLAMA_DIR "${CMAKE_CURRENT_LIST_DIR}")

# The targets defined in dir and below it.
function(_ggmlviz_llama_targets dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _ggmlviz_llama_targets("${sub}" more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} "${targets}" PARENT_SCOPE)
endfunction()

function(_ggmlviz_llama_apply)
  if(NOT TARGET llama)
    message(FATAL_ERROR "ggmlviz.cmake: this project has no target 'llama': not llama.cpp, or one it does not fit")
  endif()
  add_library(ggmlviz-llama-tools STATIC "${GGMLVIZ_LLAMA_DIR}/ggmlviz-llama-tools.cpp")
  target_link_libraries(ggmlviz-llama-tools PUBLIC ggmlviz::ggmlviz llama)
  set_target_properties(ggmlviz-llama-tools PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set(header "${GGMLVIZ_LLAMA_DIR}/ggmlviz-llama-tools.h")
  set(n 0)
  foreach(dir common tools examples)
    if(NOT EXISTS "${CMAKE_SOURCE_DIR}/${dir}/CMakeLists.txt")
      continue()
    endif()
    get_property(added DIRECTORY "${CMAKE_SOURCE_DIR}" PROPERTY SUBDIRECTORIES)
    if(NOT "${CMAKE_SOURCE_DIR}/${dir}" IN_LIST added)
      continue() # not configured in this build (LLAMA_BUILD_EXAMPLES=OFF...)
    endif()
    _ggmlviz_llama_targets("${CMAKE_SOURCE_DIR}/${dir}" targets)
    foreach(t IN LISTS targets)
      get_target_property(type ${t} TYPE)
      get_target_property(imported ${t} IMPORTED)
      if(imported OR NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
        continue()
      endif()
      set_property(TARGET ${t} APPEND PROPERTY COMPILE_OPTIONS
                   "$<$<COMPILE_LANGUAGE:CXX>:SHELL:-include \"${header}\">")
      if(type STREQUAL "STATIC_LIBRARY")
        set_property(TARGET ${t} APPEND PROPERTY INTERFACE_LINK_LIBRARIES ggmlviz-llama-tools)
      elseif(NOT type STREQUAL "OBJECT_LIBRARY")
        set_property(TARGET ${t} APPEND PROPERTY LINK_LIBRARIES ggmlviz-llama-tools)
      endif()
      math(EXPR n "${n} + 1")
    endforeach()
  endforeach()
  if(TARGET ggml-cpu)
    # its copy edited by ggmlviz-edit.py --cpu-shares calls libggmlviz (ggmlviz-cpu.h)
    target_link_libraries(ggml-cpu PRIVATE ggmlviz::ggmlviz)
  endif()
  if(TARGET ggml-base)
    # its copy edited by ggmlviz-edit.py --sched-graph-ids calls libggmlviz (ggmlviz-sched.h)
    target_link_libraries(ggml-base PRIVATE ggmlviz::ggmlviz)
  endif()
  if(TARGET ggml-rpc)
    # its copy edited by ggmlviz-edit.py --rpc-commands calls libggmlviz (ggmlviz-rpc.h)
    target_link_libraries(ggml-rpc PRIVATE ggmlviz::ggmlviz)
  endif()
  if(TARGET ggml-rpc-server)
    # its graphs' nodes are described by the GGML adapter that ggmlviz-llama-tools.cpp holds;
    # GGML calls it, and comes before it on the link line: the member is asked for by name
    target_link_options(ggml-rpc-server PRIVATE "LINKER:-u,ggmlviz_ggml_describe")
  endif()
  if(TARGET ggml-vulkan)
    # its copy edited by ggmlviz-edit.py --vulkan-times calls libggmlviz (ggmlviz-vulkan.h)
    target_link_libraries(ggml-vulkan PRIVATE ggmlviz::ggmlviz)
  endif()
  message(STATUS "ggmlviz: ${n} targets of common/, tools/ and examples/ traced through "
                 "ggmlviz-llama-tools.h (libggmlviz ${ggmlviz_VERSION} from ${ggmlviz_DIR})")
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _ggmlviz_llama_apply)
