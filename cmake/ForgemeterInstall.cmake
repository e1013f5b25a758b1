# The package config (components: find_package(forgemeter COMPONENTS meter)
# looks for fmt only), its version file, and forgemeter.pc for all of it.
# Each component's targets, headers and .pc are installed by
# forgemeter_component(); what the config knows of them is generated from
# cmake/components.txt (forgemeter_config_text()).
include(CMakePackageConfigHelpers)

set(FORGEMETER_CONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/forgemeter)

install(TARGETS forgemeter EXPORT forgemeter-all-targets)
install(EXPORT forgemeter-all-targets NAMESPACE forgemeter:: DESTINATION ${FORGEMETER_CONFIG_DIR})

forgemeter_config_text(FORGEMETER_CONFIG_COMPONENTS FORGEMETER_CONFIG_FIND)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/forgemeterConfig.cmake.in
  ${PROJECT_BINARY_DIR}/forgemeterConfig.cmake
  INSTALL_DESTINATION ${FORGEMETER_CONFIG_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/forgemeterConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/forgemeterConfig.cmake
              ${PROJECT_BINARY_DIR}/forgemeterConfigVersion.cmake
        DESTINATION ${FORGEMETER_CONFIG_DIR})

# forgemeter.pc: every component, the topmost first, so that a static link
# names each archive before the archives and libraries it needs.
set(pc_all "")
foreach(c IN LISTS FORGEMETER_COMPONENTS)
  list(PREPEND pc_all forgemeter-${c})
endforeach()
list(JOIN pc_all ", " FM_PC_REQUIRES)
set(FM_PC_REQUIRES_PRIVATE "")
set(FM_PC_NAME forgemeter)
set(FM_PC_LIBS "")
set(FM_PC_LIBS_PRIVATE "")
file(RELATIVE_PATH FM_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/forgemeter.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/forgemeter.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/forgemeter.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The alert rules docs/metrics.md documents, for an operator to copy beside
# Prometheus' configuration (share/forgemeter/alerts/forgemeter.rules.yml).
install(FILES ${PROJECT_SOURCE_DIR}/docs/alerts/forgemeter.rules.yml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/forgemeter/alerts)
