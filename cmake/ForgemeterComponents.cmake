# The installed library in parts, one per `component` row of
# cmake/components.txt. Each component is a library of its own made of its
# rooms' objects, exported as forgemeter::<component> in an export set of its
# own with the public headers of its rooms (a FILE_SET: the etcd component
# installs etcd_store.h, and a build without it installs neither), and a
# pkg-config file; forgemeter::forgemeter is all of them.
#
# forgemeter_component(<name>): the row's rooms, the components it needs,
# the libraries it links.
function(forgemeter_component name)
  set(target forgemeter_${name})
  add_library(${target})
  add_library(forgemeter::${name} ALIAS ${target})
  foreach(room IN LISTS FM_COMPONENT_${name}_ROOMS)
    target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:fm_${room}>)
  endforeach()
  foreach(dep IN LISTS FM_COMPONENT_${name}_NEEDS)
    target_link_libraries(${target} PUBLIC forgemeter_${dep})
  endforeach()
  set(pc_libraries "")
  foreach(lib IN LISTS FM_COMPONENT_${name}_LIBRARIES)
    target_link_libraries(${target} PRIVATE ${FM_LIBRARY_${lib}_TARGET})
    if(FM_LIBRARY_${lib}_VERSION)
      list(APPEND pc_libraries "${lib} >= ${FM_LIBRARY_${lib}_VERSION}")
    else()
      list(APPEND pc_libraries ${lib})
    endif()
  endforeach()
  target_link_libraries(${target} PUBLIC Threads::Threads)
  forgemeter_component_headers(${name} headers)
  target_sources(${target} PUBLIC FILE_SET HEADERS
    BASE_DIRS ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include
    FILES ${headers})
  target_compile_features(${target} PUBLIC cxx_std_20)
  if(BUILD_SHARED_LIBS)
    target_link_options(${target} PRIVATE -Wl,--no-undefined)  # every symbol a component needs is exported to it
  endif()
  set_target_properties(${target} PROPERTIES
    EXPORT_NAME ${name}
    OUTPUT_NAME forgemeter-${name}
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})

  if(FORGEMETER_INSTALL)
    install(TARGETS ${target} EXPORT forgemeter-${name}-targets
            ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
            LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
            RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
            FILE_SET HEADERS DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
    install(EXPORT forgemeter-${name}-targets NAMESPACE forgemeter::
            DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/forgemeter)
    # pkg-config: the component's library and the components below it. A
    # static archive's libraries must be in what `pkg-config --libs` prints
    # (Requires, and -pthread in Libs): --static cannot be asked for, as
    # Debian's libcurl.pc names private libraries its -dev package does not
    # install. A shared library links its own: they stay private.
    set(pc_requires "")
    foreach(dep IN LISTS FM_COMPONENT_${name}_NEEDS)
      list(APPEND pc_requires forgemeter-${dep})
    endforeach()
    if(BUILD_SHARED_LIBS)
      set(pc_private ${pc_libraries})
      set(FM_PC_LIBS "-lforgemeter-${name}")
      set(FM_PC_LIBS_PRIVATE "-pthread")
    else()
      list(APPEND pc_requires ${pc_libraries})
      set(pc_private "")
      set(FM_PC_LIBS "-lforgemeter-${name} -pthread")
      set(FM_PC_LIBS_PRIVATE "")
    endif()
    list(JOIN pc_requires ", " FM_PC_REQUIRES)
    list(JOIN pc_private ", " FM_PC_REQUIRES_PRIVATE)
    set(FM_PC_NAME forgemeter-${name})
    file(RELATIVE_PATH FM_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/forgemeter.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/forgemeter-${name}.pc @ONLY)
    install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/forgemeter-${name}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
  endif()
endfunction()
