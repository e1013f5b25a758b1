# The installed library in parts. Each component is a library of its own made
# of the rooms' objects, exported as forgemeter::<component> in an export set
# of its own, with a pkg-config file; forgemeter::forgemeter is all of them.
#
#   meter      core + meter          fmt
#   transport  + transport           libcurl
#   lease      + lease (memory store, campaign)
#   postgres   + lease/postgres      libpq
#   etcd       + lease/etcd          libcurl, OpenSSL's libcrypto
#   elected    + elected (transport + lease)
#
# forgemeter_component(<name> ROOMS <room>... [COMPONENTS <component>...]
#                      [LIBS <imported target>...] [PC_REQUIRES <pkg>...])
function(forgemeter_component name)
  cmake_parse_arguments(C "" "" "ROOMS;COMPONENTS;LIBS;PC_REQUIRES" ${ARGN})
  set(target forgemeter_${name})
  add_library(${target})
  add_library(forgemeter::${name} ALIAS ${target})
  foreach(room IN LISTS C_ROOMS)
    target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:fm_${room}>)
  endforeach()
  foreach(dep IN LISTS C_COMPONENTS)
    target_link_libraries(${target} PUBLIC forgemeter_${dep})
  endforeach()
  target_link_libraries(${target} PRIVATE ${C_LIBS} PUBLIC Threads::Threads)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${target} PUBLIC cxx_std_20)
  if(BUILD_SHARED_LIBS)
    target_link_options(${target} PRIVATE -Wl,--no-undefined)  # every symbol a component needs is exported to it
  endif()
  set_target_properties(${target} PROPERTIES
    EXPORT_NAME ${name}
    OUTPUT_NAME forgemeter-${name}
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  set_property(GLOBAL APPEND PROPERTY FM_COMPONENTS ${name})
  set_property(GLOBAL PROPERTY FM_COMPONENT_DEPS_${name} ${C_COMPONENTS})

  if(FORGEMETER_INSTALL)
    install(TARGETS ${target} EXPORT forgemeter-${name}-targets
            ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
            LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
            RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    install(EXPORT forgemeter-${name}-targets NAMESPACE forgemeter::
            DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/forgemeter)
    # pkg-config: the component's own library, the components below it, and
    # what its objects need (for a static link) from other packages.
    set(pc_requires "")
    foreach(dep IN LISTS C_COMPONENTS)
      list(APPEND pc_requires forgemeter-${dep})
    endforeach()
    set(pc_private ${C_PC_REQUIRES})
    list(JOIN pc_requires ", " FM_PC_REQUIRES)
    list(JOIN pc_private ", " FM_PC_REQUIRES_PRIVATE)
    set(FM_PC_NAME forgemeter-${name})
    set(FM_PC_LIBS "-lforgemeter-${name}")
    file(RELATIVE_PATH FM_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/forgemeter.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/forgemeter-${name}.pc @ONLY)
    install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/forgemeter-${name}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
  endif()
endfunction()
