# Including the fmt header where fmt is not installed must stop with one
# readable #error. We build an include path that is the compiler's own with
# /usr/include replaced by a copy (of links) that lacks fmt/.
#   cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<dir> -DCXX=<compiler> -P no_fmt.cmake
cmake_minimum_required(VERSION 3.23)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/usr_include")
file(GLOB entries "/usr/include/*")
foreach(e IN LISTS entries)
  get_filename_component(name "${e}" NAME)
  if(NOT name STREQUAL "fmt")
    file(CREATE_LINK "${e}" "${WORK_DIR}/usr_include/${name}" SYMBOLIC)
  endif()
endforeach()

file(WRITE "${WORK_DIR}/empty.cpp" "")
execute_process(COMMAND "${CXX}" -x c++ -std=c++20 -E -v "${WORK_DIR}/empty.cpp" OUTPUT_QUIET ERROR_VARIABLE verbose)
string(REGEX MATCH "#include <...> search starts here:\n(.*)\nEnd of search list" _ "${verbose}")
string(REPLACE "\n" ";" dirs "${CMAKE_MATCH_1}")
set(search)
foreach(d IN LISTS dirs)
  string(STRIP "${d}" d)
  string(REGEX REPLACE " \\(framework directory\\)$" "" d "${d}")
  file(REAL_PATH "${d}" real)
  if(real STREQUAL "/usr/include")
    set(d "${WORK_DIR}/usr_include")
  endif()
  list(APPEND search -isystem "${d}")
endforeach()

file(WRITE "${WORK_DIR}/uses_fmt.cpp" "#include <onnx_runtime_memory/fmt.hpp>\nint main() {}\n")
execute_process(COMMAND "${CXX}" -std=c++20 -nostdinc ${search} "-I${SOURCE_DIR}/include" -c
                        "${WORK_DIR}/uses_fmt.cpp" -o "${WORK_DIR}/uses_fmt.o"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCHALL "error:" errors "${err}")
list(LENGTH errors n)
if(NOT rc OR NOT n EQUAL 1 OR NOT err MATCHES "needs \\{fmt\\}")
  message(FATAL_ERROR "expected one '#error ... needs {fmt}' and a failed compile; got exit ${rc}, ${n} errors:\n${err}")
endif()
set(without_fmt "${err}")
# The control: the same include path with fmt present compiles.
execute_process(COMMAND "${CXX}" -std=c++20 "-I${SOURCE_DIR}/include" -c "${WORK_DIR}/uses_fmt.cpp"
                        -o "${WORK_DIR}/uses_fmt.o" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "the control compile with fmt failed:\n${err}")
endif()
message(STATUS "one readable error without fmt:\n${without_fmt}")
