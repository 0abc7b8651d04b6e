# Shared by the script-mode consumer tests: build the consumer program with
# a compiler and flags alone (no CMake target), run it, fail loudly.
#   compile_and_run_consumer(<source dir> <work dir> <compiler> <how, for messages> <flags>...
#                            [COMPILED [LIBS <libs>...]])
# COMPILED: with the compiled core, the flags carrying its macro: linked
# from LIBS, or, without them, defined by a unit of its own that includes src.hpp.
function(compile_and_run_consumer source work cxx how)
  cmake_parse_arguments(PARSE_ARGV 4 arg "COMPILED" "" "LIBS")
  set(flags ${arg_UNPARSED_ARGUMENTS})
  set(units "${source}/tests/consumers/project/consumer.cpp")
  set(program "${work}/consumer")
  if(arg_COMPILED)
    set(program "${work}/consumer_compiled")
    string(APPEND how ", the compiled core")
    if(NOT arg_LIBS)
      file(WRITE "${work}/core.cpp" "#include <onnx_runtime_memory/src.hpp>\n")
      list(APPEND units "${work}/core.cpp")
    endif()
  endif()
  execute_process(COMMAND "${cxx}" ${flags} ${units} ${arg_LIBS} -o "${program}" RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "the consumer does not compile ${how} (${flags}):\n${err}")
  endif()
  execute_process(COMMAND "${program}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "the consumer (${how}) failed:\n${out}${err}")
  endif()
  message(STATUS "${how}: ${out}")
endfunction()
