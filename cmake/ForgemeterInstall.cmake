# Headers, the package config (components: find_package(forgemeter COMPONENTS
# meter) looks for fmt only), its version file, and forgemeter.pc for all of
# it. Each component's targets and .pc are installed by forgemeter_component().
include(CMakePackageConfigHelpers)

set(FORGEMETER_CONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/forgemeter)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/forgemeter DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/forgemeter/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/forgemeter)

install(TARGETS forgemeter EXPORT forgemeter-all-targets)
install(EXPORT forgemeter-all-targets NAMESPACE forgemeter:: DESTINATION ${FORGEMETER_CONFIG_DIR})

get_property(FORGEMETER_COMPONENTS GLOBAL PROPERTY FM_COMPONENTS)
set(FORGEMETER_COMPONENT_DEPS "")
foreach(c IN LISTS FORGEMETER_COMPONENTS)
  get_property(deps GLOBAL PROPERTY FM_COMPONENT_DEPS_${c})
  string(APPEND FORGEMETER_COMPONENT_DEPS "set(_forgemeter_deps_${c} \"${deps}\")\n")
endforeach()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/forgemeterConfig.cmake.in
  ${PROJECT_BINARY_DIR}/forgemeterConfig.cmake
  INSTALL_DESTINATION ${FORGEMETER_CONFIG_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/forgemeterConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/forgemeterConfig.cmake
              ${PROJECT_BINARY_DIR}/forgemeterConfigVersion.cmake
        DESTINATION ${FORGEMETER_CONFIG_DIR})

set(pc_all "")
foreach(c IN LISTS FORGEMETER_COMPONENTS)
  list(APPEND pc_all forgemeter-${c})
endforeach()
list(JOIN pc_all ", " FM_PC_REQUIRES)
set(FM_PC_REQUIRES_PRIVATE "")
set(FM_PC_NAME forgemeter)
set(FM_PC_LIBS "")
file(RELATIVE_PATH FM_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/forgemeter.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/forgemeter.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/forgemeter.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
