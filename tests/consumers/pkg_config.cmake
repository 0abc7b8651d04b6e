# A non-CMake build: flags from the installed pkg-config file.
#   cmake -DPREFIX=<install prefix> -DWORK_DIR=<dir> -DCXX=<compiler> -DSOURCE_DIR=<repo> -DVERSION=x.y.z
#         [-DWITH_COMPILED=ON] -P pkg_config.cmake
# WITH_COMPILED: the prefix holds the compiled core, and onnx_runtime_memory_compiled's flags build the consumer too.
cmake_minimum_required(VERSION 3.23)
file(MAKE_DIRECTORY "${WORK_DIR}")
set(ENV{PKG_CONFIG_PATH} "${PREFIX}/share/pkgconfig:${PREFIX}/lib/pkgconfig")
execute_process(COMMAND pkg-config --modversion onnx_runtime_memory OUTPUT_VARIABLE version
                OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc OR NOT version STREQUAL VERSION)
  message(FATAL_ERROR "pkg-config --modversion: '${version}' (expected ${VERSION}) ${err}")
endif()
execute_process(COMMAND pkg-config --cflags onnx_runtime_memory OUTPUT_VARIABLE cflags
                OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
separate_arguments(cflags UNIX_COMMAND "${cflags}")
# The file is relocatable (prefix=${pcfiledir}/../..): compare real paths.
list(FILTER cflags INCLUDE REGEX "^-I")
list(TRANSFORM cflags REPLACE "^-I" "")
file(REAL_PATH "${cflags}" include_dir)
file(REAL_PATH "${PREFIX}/include" expected)
if(NOT include_dir STREQUAL expected)
  message(FATAL_ERROR "pkg-config --cflags points to '${include_dir}', not to '${expected}'")
endif()
execute_process(COMMAND pkg-config --cflags onnx_runtime_memory OUTPUT_VARIABLE cflags OUTPUT_STRIP_TRAILING_WHITESPACE)
separate_arguments(cflags UNIX_COMMAND "${cflags}")
if(cflags MATCHES "-std=")
  message(FATAL_ERROR "pkg-config --cflags forces a language level on consumers: ${cflags}")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/consumer_program.cmake")
compile_and_run_consumer("${SOURCE_DIR}" "${WORK_DIR}" "${CXX}" "with pkg-config ${version}'s flags" -std=c++20 ${cflags} -Wall
                         -Wextra -Wpedantic -Werror)
if(WITH_COMPILED)
  execute_process(COMMAND pkg-config --cflags --libs onnx_runtime_memory_compiled OUTPUT_VARIABLE flags
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "pkg-config onnx_runtime_memory_compiled: ${err}")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(libs ${flags})
  list(FILTER flags EXCLUDE REGEX "^-[lL]")
  list(FILTER libs INCLUDE REGEX "^-[lL]")
  compile_and_run_consumer("${SOURCE_DIR}" "${WORK_DIR}" "${CXX}" "with pkg-config's flags" -std=c++20 ${flags}
                           -Wall -Wextra -Wpedantic -Werror COMPILED LIBS ${libs})
endif()
