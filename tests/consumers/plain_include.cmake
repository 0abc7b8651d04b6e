# Plain #include: copy include/ into a tree, compile every public header on
# its own and the consumer with -I and -std=c++20 alone, no CMake target.
#   cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<dir> -DCXX=<compiler> -DWITH_FMT=ON|OFF [-DEXTRA_FLAGS=...]
#         [-DEACH_HEADER=OFF] -P plain_include.cmake
# EACH_HEADER=OFF leaves out the headers' one-by-one check (the consumers
# alone: with -fno-exceptions, the umbrella header and src.hpp reach every
# header, and the check with exceptions on shows each one stands alone).
cmake_minimum_required(VERSION 3.23)
file(REMOVE_RECURSE "${WORK_DIR}")
file(COPY "${SOURCE_DIR}/include/" DESTINATION "${WORK_DIR}/include")
file(GLOB_RECURSE headers RELATIVE "${WORK_DIR}/include" "${WORK_DIR}/include/*.hpp")
if(NOT WITH_FMT)
  list(REMOVE_ITEM headers onnx_runtime_memory/fmt.hpp)
endif()
set(flags -std=c++20 -Wall -Wextra -Wpedantic -Werror ${EXTRA_FLAGS} "-I${WORK_DIR}/include")
# .ci/run sets ONNX_RUNTIME_MEMORY_HEADERS_CHECKED once clang has compiled
# every header alone (same standard library): for time, not twice.
if((DEFINED EACH_HEADER AND NOT EACH_HEADER) OR "$ENV{ONNX_RUNTIME_MEMORY_HEADERS_CHECKED}")
  set(headers "")
endif()
foreach(h IN LISTS headers)
  file(WRITE "${WORK_DIR}/alone.cpp" "#include <${h}>\n")
  execute_process(COMMAND "${CXX}" ${flags} -fsyntax-only "${WORK_DIR}/alone.cpp" RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "${h} does not compile on its own:\n${err}")
  endif()
endforeach()
list(LENGTH headers n)
if(n GREATER 0)
  message(STATUS "${n} headers compile on their own")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/consumer_program.cmake")
compile_and_run_consumer("${SOURCE_DIR}" "${WORK_DIR}" "${CXX}" "with -I alone" ${flags})
compile_and_run_consumer("${SOURCE_DIR}" "${WORK_DIR}" "${CXX}" "with -I alone" ${flags}
                         -DONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION COMPILED)
