include(CMakePackageConfigHelpers)

set(FORGEMETER_CONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/forgemeter)

install(TARGETS forgemeter EXPORT forgemeterTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/forgemeter
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT forgemeterTargets NAMESPACE forgemeter::
        DESTINATION ${FORGEMETER_CONFIG_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/forgemeterConfig.cmake.in
  ${PROJECT_BINARY_DIR}/forgemeterConfig.cmake
  INSTALL_DESTINATION ${FORGEMETER_CONFIG_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/forgemeterConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/forgemeterConfig.cmake
              ${PROJECT_BINARY_DIR}/forgemeterConfigVersion.cmake
        DESTINATION ${FORGEMETER_CONFIG_DIR})
