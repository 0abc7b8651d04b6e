# Overlay port: builds the checkout it lives in (cmake/vcpkg/onnx-runtime-memory
# inside the repository), so it always matches the sources next to it.
#   vcpkg install onnx-runtime-memory[fmt] --overlay-ports=<repo>/cmake/vcpkg
# Headers only, or with [compiled] one static library of planning code that
# no debug setting changes (no iterator checks in its interface): release.
set(VCPKG_BUILD_TYPE release)

get_filename_component(SOURCE_PATH "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

vcpkg_check_features(OUT_FEATURE_OPTIONS FEATURE_OPTIONS
  FEATURES
    fmt ONNX_RUNTIME_MEMORY_FMT
    compiled ONNX_RUNTIME_MEMORY_COMPILED)

vcpkg_cmake_configure(
  SOURCE_PATH "${SOURCE_PATH}"
  OPTIONS
    -DONNX_RUNTIME_MEMORY_BUILD_TESTS=OFF
    -DONNX_RUNTIME_MEMORY_BUILD_EXAMPLES=OFF
    ${FEATURE_OPTIONS})
vcpkg_cmake_install()
vcpkg_cmake_config_fixup(PACKAGE_NAME onnx_runtime_memory CONFIG_PATH share/onnx_runtime_memory)

vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
