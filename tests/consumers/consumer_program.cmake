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
