# Install rules: headers, CMake package config (architecture-independent
# unless the compiled core is installed too) and pkg-config files.
include(CMakePackageConfigHelpers)

set(ONNX_RUNTIME_MEMORY_CMAKE_DIR "${CMAKE_INSTALL_DATADIR}/onnx_runtime_memory"
    CACHE STRING "Where the CMake package config is installed")

install(TARGETS onnx_runtime_memory EXPORT onnx_runtime_memory_targets FILE_SET HEADERS)
install(EXPORT onnx_runtime_memory_targets NAMESPACE onnx_runtime_memory::
        DESTINATION "${ONNX_RUNTIME_MEMORY_CMAKE_DIR}")
if(TARGET onnx_runtime_memory_fmt)
  install(TARGETS onnx_runtime_memory_fmt EXPORT onnx_runtime_memory_fmt_targets FILE_SET HEADERS)
  install(EXPORT onnx_runtime_memory_fmt_targets NAMESPACE onnx_runtime_memory::
          DESTINATION "${ONNX_RUNTIME_MEMORY_CMAKE_DIR}")
endif()

if(ONNX_RUNTIME_MEMORY_COMPILED)
  install(TARGETS onnx_runtime_memory_compiled EXPORT onnx_runtime_memory_compiled_targets
          ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
  install(EXPORT onnx_runtime_memory_compiled_targets NAMESPACE onnx_runtime_memory::
          DESTINATION "${ONNX_RUNTIME_MEMORY_CMAKE_DIR}")
  set(arch_independent)
else()
  set(arch_independent ARCH_INDEPENDENT)
endif()

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/onnx_runtime_memory-config.cmake.in"
  "${PROJECT_BINARY_DIR}/onnx_runtime_memory-config.cmake"
  INSTALL_DESTINATION "${ONNX_RUNTIME_MEMORY_CMAKE_DIR}")
# 0.x: a new minor version may break the API, so only the same minor matches.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/onnx_runtime_memory-config-version.cmake"
  COMPATIBILITY SameMinorVersion ${arch_independent})
install(FILES "${PROJECT_BINARY_DIR}/onnx_runtime_memory-config.cmake"
              "${PROJECT_BINARY_DIR}/onnx_runtime_memory-config-version.cmake"
        DESTINATION "${ONNX_RUNTIME_MEMORY_CMAKE_DIR}")

configure_file("${PROJECT_SOURCE_DIR}/cmake/onnx_runtime_memory.pc.in"
               "${PROJECT_BINARY_DIR}/onnx_runtime_memory.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/onnx_runtime_memory.pc" DESTINATION "${CMAKE_INSTALL_DATADIR}/pkgconfig")
if(ONNX_RUNTIME_MEMORY_COMPILED)
  # Beside the library it names; prefix found from its own place.
  file(RELATIVE_PATH ONNX_RUNTIME_MEMORY_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/onnx_runtime_memory_compiled.pc.in"
                 "${PROJECT_BINARY_DIR}/onnx_runtime_memory_compiled.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/onnx_runtime_memory_compiled.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endif()
