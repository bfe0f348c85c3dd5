# Traces whisper.cpp's library with libggmlviz, as scripts/build-whisper-tools.sh
# builds it:
#
#     cmake -S whisper.cpp -B build -Dggmlviz_DIR=PREFIX/lib/cmake/ggmlviz \
#           -DCMAKE_PROJECT_INCLUDE=.../contrib/whisper.cpp/ggmlviz.cmake
#
# It finds an installed libggmlviz (find_package(ggmlviz 0.2)), and when the
# top-level CMakeLists.txt is done (cmake_language(DEFER)), gives the target
# whisper (src/whisper.cpp) the header ggmlviz-whisper.h forced into its C++
# compilation, and links the functions it calls (ggmlviz-whisper.cpp, a
# static library of its own, with the GGML adapter). Every graph
# whisper.cpp computes is then traced when GGML_VIZ_OUTPUT asks for a trace;
# its stages (the encoder, each decoder call, the mel spectrogram) are the
# calls contrib/whisper.cpp/ggmlviz-edit.py wraps in the copy built. GGML's
# libraries link libggmlviz for the edits of their copy (the CPU shares, the
# split graphs' ids), as contrib/llama.cpp/ggmlviz.cmake does.
#
# SPDX-License-Identifier: MIT

# CMAKE_PROJECT_INCLUDE runs after every project(): only the top one (not ggml's)
if(NOT CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR OR DEFINED _GGMLVIZ_WHISPER_DONE)
  return()
endif()
set(_GGMLVIZ_WHISPER_DONE ON)
if(CMAKE_VERSION VERSION_LESS 3.19)
  message(FATAL_ERROR "ggmlviz.cmake: CMake 3.19 or newer is needed (cmake_language(DEFER)); this is ${CMAKE_VERSION}")
endif()

find_package(ggmlviz 0.2 REQUIRED)
set(GGMLVIZ_WHISPER_DIR "${CMAKE_CURRENT_LIST_DIR}")
# whisper.cpp asks for CMake 3.5's policies; the function below links targets of other
# folders (it keeps the policies in force where it is defined)
cmake_policy(SET CMP0079 NEW)

function(_ggmlviz_whisper_apply)
  if(NOT TARGET whisper OR NOT TARGET ggml)
    message(FATAL_ERROR "ggmlviz.cmake: this project has no target 'whisper' or 'ggml': not whisper.cpp, or one it does not fit")
  endif()
  add_library(ggmlviz-whisper STATIC "${GGMLVIZ_WHISPER_DIR}/ggmlviz-whisper.cpp")
  target_link_libraries(ggmlviz-whisper PUBLIC ggmlviz::ggmlviz ggml)
  target_compile_features(ggmlviz-whisper PRIVATE cxx_std_11)
  set_target_properties(ggmlviz-whisper PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set_property(TARGET whisper APPEND PROPERTY COMPILE_OPTIONS
               "$<$<COMPILE_LANGUAGE:CXX>:SHELL:-include \"${GGMLVIZ_WHISPER_DIR}/ggmlviz-whisper.h\">")
  target_link_libraries(whisper PUBLIC ggmlviz-whisper)
  foreach(t ggml-cpu ggml-base ggml-vulkan)
    if(TARGET ${t})
      # their copies edited by ggmlviz-edit.py call libggmlviz (contrib/llama.cpp/ggmlviz-*.h)
      target_link_libraries(${t} PRIVATE ggmlviz::ggmlviz)
    endif()
  endforeach()
  foreach(t whisper-server)
    if(TARGET ${t})
      # its copy edited by ggmlviz-edit.py --server-requests records the requests
      target_link_libraries(${t} PRIVATE ggmlviz::ggmlviz)
    endif()
  endforeach()
  message(STATUS "ggmlviz: whisper traced through ggmlviz-whisper.h "
                 "(libggmlviz ${ggmlviz_VERSION} from ${ggmlviz_DIR})")
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _ggmlviz_whisper_apply)
