# Tests the vcpkg overlay port without vcpkg (which cannot be installed
# here): runs the real portfile.cmake with stand-ins for the vcpkg helpers it
# calls, each doing what vcpkg does with exactly the flags vcpkg passes, then
# checks the installed layout and builds a find_package consumer on it.
#   cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<dir> -DCXX=<compiler> -DFEATURES=fmt|compiled|"" -DGENERATOR=<gen> -DVERSION=x.y.z
#         -P vcpkg_port.cmake
cmake_minimum_required(VERSION 3.23)
set(port_dir "${SOURCE_DIR}/cmake/vcpkg/onnx-runtime-memory")
set(PORT onnx-runtime-memory)
set(CURRENT_PACKAGES_DIR "${WORK_DIR}/packages/${PORT}_x64-linux")
set(buildtree "${WORK_DIR}/buildtrees/${PORT}")
file(REMOVE_RECURSE "${WORK_DIR}")

# ---- the manifest is valid JSON with the fields vcpkg needs ----
file(READ "${port_dir}/vcpkg.json" manifest)
foreach(key name version license)
  string(JSON value ERROR_VARIABLE json_error GET "${manifest}" ${key})
  if(json_error)
    message(FATAL_ERROR "vcpkg.json: ${json_error}")
  endif()
endforeach()
string(JSON port_name GET "${manifest}" name)
string(JSON fmt_dependency GET "${manifest}" features fmt dependencies 0)
if(NOT port_name STREQUAL PORT OR NOT fmt_dependency STREQUAL "fmt")
  message(FATAL_ERROR "vcpkg.json: unexpected name '${port_name}' or fmt feature dependency '${fmt_dependency}'")
endif()
string(JSON port_version GET "${manifest}" version)
if(NOT port_version STREQUAL VERSION)
  message(FATAL_ERROR "vcpkg.json version ${port_version} differs from the project's ${VERSION}")
endif()

# ---- stand-ins for the vcpkg helpers the portfile calls ----
function(vcpkg_check_features)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "OUT_FEATURE_OPTIONS" "FEATURES")
  set(options)
  list(LENGTH arg_FEATURES n)
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last} 2)
    math(EXPR j "${i} + 1")
    list(GET arg_FEATURES ${i} feature)
    list(GET arg_FEATURES ${j} option)
    if(feature IN_LIST FEATURES)
      list(APPEND options "-D${option}=ON")
    else()
      list(APPEND options "-D${option}=OFF")
    endif()
  endforeach()
  set(${arg_OUT_FEATURE_OPTIONS} "${options}" PARENT_SCOPE)
endfunction()
function(vcpkg_cmake_configure)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "SOURCE_PATH" "OPTIONS")
  if(NOT VCPKG_BUILD_TYPE STREQUAL "release")
    message(FATAL_ERROR "the port must be release-only (VCPKG_BUILD_TYPE release)")
  endif()
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -S "${arg_SOURCE_PATH}" -B "${buildtree}/x64-linux-rel" -G "${GENERATOR}"
            "-DCMAKE_CXX_COMPILER=${CXX}" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_INSTALL_PREFIX=${CURRENT_PACKAGES_DIR}"
            -DFETCHCONTENT_FULLY_DISCONNECTED=ON -DCMAKE_ERROR_ON_ABSOLUTE_INSTALL_DESTINATION=ON
            -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_INSTALL_BINDIR=bin -DCMAKE_EXPORT_NO_PACKAGE_REGISTRY=ON
            -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON -DCMAKE_INSTALL_SYSTEM_RUNTIME_LIBS_SKIP=TRUE
            -DBUILD_SHARED_LIBS=OFF -DVCPKG_CHAINLOAD_TOOLCHAIN_FILE= ${arg_OPTIONS}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "configure failed:\n${out}${err}")
  endif()
endfunction()
function(vcpkg_cmake_install)
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${buildtree}/x64-linux-rel" --target install
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "install failed:\n${out}${err}")
  endif()
endfunction()
function(vcpkg_cmake_config_fixup)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "PACKAGE_NAME;CONFIG_PATH" "")
  if(NOT EXISTS "${CURRENT_PACKAGES_DIR}/${arg_CONFIG_PATH}/${arg_PACKAGE_NAME}-config.cmake")
    message(FATAL_ERROR "no ${arg_PACKAGE_NAME}-config.cmake in ${arg_CONFIG_PATH}")
  endif()
  if(NOT arg_CONFIG_PATH STREQUAL "share/${arg_PACKAGE_NAME}")
    file(RENAME "${CURRENT_PACKAGES_DIR}/${arg_CONFIG_PATH}" "${CURRENT_PACKAGES_DIR}/share/${arg_PACKAGE_NAME}")
  endif()
endfunction()
function(vcpkg_install_copyright)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "FILE_LIST")
  file(READ "${arg_FILE_LIST}" text)
  file(WRITE "${CURRENT_PACKAGES_DIR}/share/${PORT}/copyright" "${text}")
endfunction()

include("${port_dir}/portfile.cmake")

# ---- the installed layout: headers and share/ only, no lib/, no debug/, no empty folders ----
file(GLOB top RELATIVE "${CURRENT_PACKAGES_DIR}" "${CURRENT_PACKAGES_DIR}/*")
list(SORT top)
set(expected_top "include;share")
if("compiled" IN_LIST FEATURES)
  set(expected_top "include;lib;share")  # lib/: the compiled core and its pkg-config file
endif()
if(NOT top STREQUAL expected_top)
  message(FATAL_ERROR "top-level folders: ${top} (expected ${expected_top})")
endif()
file(GLOB_RECURSE all LIST_DIRECTORIES true "${CURRENT_PACKAGES_DIR}/*")
foreach(p IN LISTS all)
  if(IS_DIRECTORY "${p}")
    file(GLOB inside "${p}/*")
    if(NOT inside)
      message(FATAL_ERROR "empty folder: ${p}")
    endif()
  endif()
endforeach()
foreach(f include/onnx_runtime_memory/onnx_runtime_memory.hpp share/onnx_runtime_memory/onnx_runtime_memory-config.cmake
          share/onnx_runtime_memory/onnx_runtime_memory-config-version.cmake share/${PORT}/copyright
          share/${PORT}/usage share/pkgconfig/onnx_runtime_memory.pc)
  if(NOT EXISTS "${CURRENT_PACKAGES_DIR}/${f}")
    message(FATAL_ERROR "missing: ${f}")
  endif()
endforeach()
set(fmt_header "${CURRENT_PACKAGES_DIR}/include/onnx_runtime_memory/fmt.hpp")
if("fmt" IN_LIST FEATURES AND NOT EXISTS "${fmt_header}")
  message(FATAL_ERROR "feature fmt: fmt.hpp is not installed")
elseif(NOT "fmt" IN_LIST FEATURES AND EXISTS "${fmt_header}")
  message(FATAL_ERROR "without feature fmt, fmt.hpp is installed anyway")
endif()

# ---- a find_package consumer on the staged prefix ----
set(with_fmt OFF)
if("fmt" IN_LIST FEATURES)
  set(with_fmt ON)
endif()
set(with_compiled OFF)
if("compiled" IN_LIST FEATURES)
  set(with_compiled ON)
  if(NOT EXISTS "${CURRENT_PACKAGES_DIR}/lib/libonnx_runtime_memory.a")
    message(FATAL_ERROR "feature compiled: lib/libonnx_runtime_memory.a is not installed")
  endif()
endif()
execute_process(
  COMMAND "${CMAKE_CTEST_COMMAND}" --build-and-test "${SOURCE_DIR}/tests/consumers/project" "${WORK_DIR}/consumer"
          --build-generator "${GENERATOR}" --build-options "-DCMAKE_CXX_COMPILER=${CXX}" -DMODE=find_package
          "-DCMAKE_PREFIX_PATH=${CURRENT_PACKAGES_DIR}" -DWITH_FMT=${with_fmt} -DWITH_COMPILED=${with_compiled}
          "-DORM_EXPECT_DIR=${CURRENT_PACKAGES_DIR}/share/onnx_runtime_memory"
          --test-command "${CMAKE_CTEST_COMMAND}" --output-on-failure
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "the find_package consumer failed on the port's install:\n${out}${err}")
endif()
message(STATUS "port installed with features '${FEATURES}'; consumer passed")
