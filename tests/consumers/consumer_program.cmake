# Shared by the script-mode consumer tests: build the consumer program with
# a compiler and flags alone (no CMake target), run it, fail loudly.
#   compile_and_run_consumer(<source dir> <work dir> <compiler> <how, for messages> <flags>...)
function(compile_and_run_consumer source work cxx how)
  execute_process(COMMAND "${cxx}" ${ARGN} "${source}/tests/consumers/project/consumer.cpp" -o "${work}/consumer"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "the consumer does not compile ${how} (${ARGN}):\n${err}")
  endif()
  execute_process(COMMAND "${work}/consumer" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "the consumer failed:\n${out}${err}")
  endif()
  message(STATUS "${how}: ${out}")
endfunction()

# The same with the compiled core: the consumer and a unit that includes
# src.hpp, both built with the macro (and `libs` after them, if any).
#   compile_and_run_consumer_compiled(<source dir> <work dir> <compiler> <how> <flags>... [LIBS <libs>...])
function(compile_and_run_consumer_compiled source work cxx how)
  cmake_parse_arguments(PARSE_ARGV 4 arg "" "" "LIBS")
  set(flags ${arg_UNPARSED_ARGUMENTS})
  set(units "${source}/tests/consumers/project/consumer.cpp")
  if(NOT arg_LIBS)  # no library to link: the program defines the core itself
    file(WRITE "${work}/core.cpp" "#include <onnx_runtime_memory/src.hpp>\n")
    list(APPEND units "${work}/core.cpp")
  endif()
  execute_process(COMMAND "${cxx}" ${flags} ${units} ${arg_LIBS} -o "${work}/consumer_compiled"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "the consumer does not compile ${how} with the compiled core (${flags}):\n${err}")
  endif()
  execute_process(COMMAND "${work}/consumer_compiled" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "the consumer with the compiled core failed:\n${out}${err}")
  endif()
  message(STATUS "${how}, the compiled core: ${out}")
endfunction()
