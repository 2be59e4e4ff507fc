cmake_minimum_required(VERSION 3.25)
# A SIM_LAMBDA that captures `this` compiles in C++17 (g++ and nvcc say nothing) and fails
# only on a GPU. Compiled as C++20 with -Werror=deprecated, that capture is an error (g++:
# "implicit capture of 'this' via '[=]' is deprecated in C++20"). This script checks that
# this_capture.cpp's wrong case fails and its right one compiles, then syntax-checks every
# source of the tree that writes a SIM_LAMBDA the same way.
#   cmake -DCXX=<compiler> -DROOT=<source root> -P no_this_capture.cmake
set(flags -std=c++20 -fsyntax-only -Werror=deprecated -DSIMKIT_HAS_CUDA=0 -DSIMKIT_ABI_VERSION_TEXT="test"
          -I${ROOT} -I${ROOT}/include)
set(failures 0)
set(sample ${ROOT}/tests/core/compile_fail/this_capture.cpp)
foreach(case 0 1)
  execute_process(COMMAND ${CXX} ${flags} -DSIM_CASE=${case} ${sample} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(case EQUAL 0 AND NOT rc EQUAL 0)
    message(SEND_ERROR "this_capture.cpp case 0 (members copied to locals) failed to compile:\n${err}")
    math(EXPR failures "${failures} + 1")
  elseif(case EQUAL 1 AND (rc EQUAL 0 OR NOT err MATCHES "implicit capture of [^ ]*this"))
    message(SEND_ERROR "this_capture.cpp case 1 (a SIM_LAMBDA using members) must fail with 'implicit capture of this':\n${err}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
file(GLOB_RECURSE sources LIST_DIRECTORIES false ${ROOT}/core/*.cpp ${ROOT}/core/*.hpp ${ROOT}/solvers/*.hpp
     ${ROOT}/models/*.cpp ${ROOT}/models/*.hpp ${ROOT}/examples/*.cpp ${ROOT}/bench/*.cpp ${ROOT}/tests/*.cpp)
set(checked 0)
foreach(src IN LISTS sources)
  if(src MATCHES "compile_fail/" OR src MATCHES "core/runtime/macros.hpp$" OR src MATCHES "core/kernels/for_each.hpp$")
    continue()
  endif()
  file(STRINGS ${src} uses REGEX "SIM_LAMBDA\\(")
  if(NOT uses)
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  execute_process(COMMAND ${CXX} ${flags} ${src} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "${src}: a SIM_LAMBDA captures this, or the file is not valid C++20:\n${err}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
message(STATUS "no_this_capture: ${checked} source(s) with SIM_LAMBDA checked")
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} this-capture check(s) failed")
endif()
