cmake_minimum_required(VERSION 3.25)
# Compiles misuse.cpp once per case with the host compiler (syntax only) and checks that the
# correct use compiles and each misuse fails with its message in plain words.
#   cmake -DCXX=<compiler> -DSRC=<misuse.cpp> -DROOT=<source root> -P compile_fail.cmake
set(expect
  "0|"
  "1|fill_uniform fills float or double arrays only"
  "2|a reduction along an axis needs a matrix or a 3-D array"
  "3|expression rank is larger than the destination's rank"
  "4|~ takes a bool or integer operand"
  "5|and ^ take bool or integer operands"
  "6|b = a.clone() copies"
  "7|a view of a temporary array would read freed memory"
  "8|a view carries no context"
  "9|sim::var(M, 1) is ambiguous")
set(failures 0)
foreach(entry IN LISTS expect)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 case)
  list(LENGTH parts n)
  set(message "")
  if(n GREATER 1)
    list(GET parts 1 message)
  endif()
  execute_process(COMMAND ${CXX} -std=c++17 -fsyntax-only -DSIMKIT_HAS_CUDA=0 -DSIMKIT_ABI_VERSION_TEXT="test"
                          -DSIM_CASE=${case} -I${ROOT} -I${ROOT}/include ${SRC}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(case EQUAL 0)
    if(NOT rc EQUAL 0)
      message(SEND_ERROR "case 0 (correct use) failed to compile:\n${err}")
      math(EXPR failures "${failures} + 1")
    else()
      message(STATUS "case 0: the correct use compiles")
    endif()
  elseif(rc EQUAL 0)
    message(SEND_ERROR "case ${case} compiled, but it must fail with: ${message}")
    math(EXPR failures "${failures} + 1")
  else()
    string(FIND "${err}" "${message}" at)
    if(at EQUAL -1)
      message(SEND_ERROR "case ${case} failed, but without the message '${message}':\n${err}")
      math(EXPR failures "${failures} + 1")
    else()
      message(STATUS "case ${case}: fails to compile with: ${message}")
    endif()
  endif()
endforeach()
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} compile-fail case(s) wrong")
endif()
