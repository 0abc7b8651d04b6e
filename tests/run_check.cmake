# Runs a command and checks its exit code and output: a ctest test for a
# program's behaviour as a user sees it.
#   cmake -DCOMMAND=prog;arg;... -DEXPECT_EXIT=N [-DEXPECT_OUTPUT=regex] [-DREJECT_OUTPUT=regex] -P run_check.cmake
# stdout and stderr are matched together. -DEXPECT_FROM=<file> takes the
# expected output from that file's "# expect: <regex>" line, read when the test runs.
cmake_minimum_required(VERSION 3.23)
if(DEFINED EXPECT_FROM)
  file(STRINGS "${EXPECT_FROM}" EXPECT_OUTPUT REGEX "^# expect: ")
  string(REPLACE "# expect: " "" EXPECT_OUTPUT "${EXPECT_OUTPUT}")
endif()
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(NOT "${code}" STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "exit ${code}, expected ${EXPECT_EXIT}\n--- output:\n${all}")
endif()
if(DEFINED EXPECT_OUTPUT AND NOT all MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "output does not match '${EXPECT_OUTPUT}'\n--- output:\n${all}")
endif()
if(DEFINED REJECT_OUTPUT AND all MATCHES "${REJECT_OUTPUT}")
  message(FATAL_ERROR "output matches '${REJECT_OUTPUT}', which it must not\n--- output:\n${all}")
endif()
message(STATUS "ok: exit ${code}")
