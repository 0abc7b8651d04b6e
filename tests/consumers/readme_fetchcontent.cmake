# The README's FetchContent snippet, as written, in a project of its own: its
# GIT_REPOSITORY is pointed at a scratch repository whose `main` is this
# checkout's HEAD (CI has no network), the rest is the README's text. Builds
# and runs the consumer program.
#   cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<dir> -DCXX=<compiler> -DGENERATOR=<gen> -P readme_fetchcontent.cmake
cmake_minimum_required(VERSION 3.23)
file(READ "${SOURCE_DIR}/README.md" readme)
string(FIND "${readme}" "**`FetchContent`**" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the README has no FetchContent section")
endif()
string(SUBSTRING "${readme}" ${at} -1 rest)
string(FIND "${rest}" "```cmake\n" open)
string(SUBSTRING "${rest}" ${open} -1 rest)
string(LENGTH "```cmake\n" skip)
string(SUBSTRING "${rest}" ${skip} -1 rest)
string(FIND "${rest}" "```" close)
string(SUBSTRING "${rest}" 0 ${close} snippet)
string(REGEX MATCH "GIT_REPOSITORY [^\n]*" repository_line "${snippet}")
if(NOT repository_line OR NOT snippet MATCHES "GIT_TAG main")
  message(FATAL_ERROR "the README's FetchContent snippet changed shape:\n${snippet}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/project")
find_program(GIT git REQUIRED)
foreach(step "${GIT};init;--quiet;--bare;${WORK_DIR}/repo.git"
             "${GIT};-C;${SOURCE_DIR};push;--quiet;${WORK_DIR}/repo.git;HEAD:refs/heads/main")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "${step} failed (${rc}): ${err}")
  endif()
endforeach()
string(REPLACE "${repository_line}" "GIT_REPOSITORY \"${WORK_DIR}/repo.git\"" snippet "${snippet}")
file(COPY "${CMAKE_CURRENT_LIST_DIR}/project/consumer.cpp" DESTINATION "${WORK_DIR}/project")
file(WRITE "${WORK_DIR}/project/CMakeLists.txt"
     "cmake_minimum_required(VERSION 3.23)\nproject(readme_consumer LANGUAGES CXX)\n"
     "add_executable(app consumer.cpp)\n${snippet}")
message(STATUS "the snippet:\n${snippet}")
foreach(step
        "${CMAKE_COMMAND};-S;${WORK_DIR}/project;-B;${WORK_DIR}/build;-G;${GENERATOR};-DCMAKE_CXX_COMPILER=${CXX};-DCMAKE_BUILD_TYPE=Release"
        "${CMAKE_COMMAND};--build;${WORK_DIR}/build"
        "${WORK_DIR}/build/app")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "${step} failed (${rc}):\n${out}\n${err}")
  endif()
endforeach()
message(STATUS "${out}")
