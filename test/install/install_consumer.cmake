# Script mode. Installs a build of forgemeter into a scratch prefix, then
# builds and runs consumers against it:
#   consumer        find_package(forgemeter), forgemeter::forgemeter: every
#                   component the install has (consumer/main.cc)
#   consumer_meter  find_package(forgemeter COMPONENTS meter) with libcurl and
#                   libpq unfindable
#   pkg-config      consumer/main.cc built with `pkg-config --cflags --libs
#                   forgemeter` alone, and each part of it with its own
#                   component's .pc alone (forgemeter-<name>), then run
# The installed headers are those of the components built (HEADERS_IN), and
# none of the others' (HEADERS_OUT).
# The static run installs the build under test, program included: `man
# forgemeter` must work and the bash completion be in place. Both runs find
# the alert rules in share/forgemeter/alerts.
# With SHARED=ON the build is configured here first (BUILD_SHARED_LIBS=ON, the
# library alone, the same OPTIONS, BUILD_TYPE and its CONFIG_FLAGS), and the
# libraries' SONAMEs and exported symbols are checked.
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()
foreach(list COMPONENTS HEADERS_IN HEADERS_OUT OPTIONS)
  string(REPLACE "," ";" ${list} "${${list}}")
endforeach()

set(prefix ${WORK_DIR}/prefix)
if(SHARED)
  set(BUILD_DIR ${WORK_DIR}/shared-build)
  set(launcher "")
  if(LAUNCHER)
    set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
  endif()
  string(TOUPPER "${BUILD_TYPE}" config)
  run(${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${BUILD_DIR} -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX} ${launcher}
      -DCMAKE_BUILD_TYPE=${BUILD_TYPE} "-DCMAKE_CXX_FLAGS_${config}=${CONFIG_FLAGS}"
      -DBUILD_SHARED_LIBS=ON -DFORGEMETER_BUILD_TESTS=OFF -DFORGEMETER_BUILD_BENCH=OFF -DFORGEMETER_BUILD_CLI=OFF
      -DFORGEMETER_BUILD_DEMO=OFF -DFORGEMETER_BUILD_EXAMPLES=OFF ${OPTIONS})
  run(${CMAKE_COMMAND} --build ${BUILD_DIR})
endif()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

if(NOT SHARED)  # this build has the program: its man page and completion where man(1) and bash look
  run(man -M ${prefix}/share/man -P cat forgemeter)
  if(NOT run_out MATCHES "forgemeter lease run")
    message(FATAL_ERROR "man forgemeter: no section for 'lease run'\n${run_out}")
  endif()
  if(NOT EXISTS ${prefix}/share/bash-completion/completions/forgemeter)
    message(FATAL_ERROR "no bash completion installed in ${prefix}/share/bash-completion/completions")
  endif()
endif()
if(NOT EXISTS ${prefix}/share/forgemeter/alerts/forgemeter.rules.yml)
  message(FATAL_ERROR "the alert rules are not installed in ${prefix}/share/forgemeter/alerts")
endif()

foreach(h IN LISTS HEADERS_IN)
  if(NOT EXISTS ${prefix}/include/forgemeter/${h}.h)
    message(FATAL_ERROR "forgemeter/${h}.h is not installed")
  endif()
endforeach()
foreach(h IN LISTS HEADERS_OUT)
  if(EXISTS ${prefix}/include/forgemeter/${h}.h)
    message(FATAL_ERROR "forgemeter/${h}.h is installed, but not the component it belongs to")
  endif()
endforeach()

file(GLOB libdir ${prefix}/lib*/pkgconfig)
get_filename_component(libdir ${libdir} DIRECTORY)
if(SHARED)
  foreach(c IN LISTS COMPONENTS)
    file(GLOB lib ${libdir}/libforgemeter-${c}.so.*.*.*)
    run(objdump -p ${lib})
    if(NOT run_out MATCHES "SONAME +libforgemeter-${c}\\.so\\.[0-9]+\\.[0-9]+\n")
      message(FATAL_ERROR "${lib}: no versioned SONAME\n${run_out}")
    endif()
    # Hidden by default: what a library exports is the public API (namespace
    # forgemeter, outside its *_detail namespaces) and what another component
    # of forgemeter needs.
    run(nm -D -C --defined-only ${lib})
    string(REGEX MATCHALL "[^\n]*(fmt::|nlohmann|httplib|testforge::)[^\n]*" leaked "${run_out}")
    if(leaked)
      message(FATAL_ERROR "${lib} exports what it must not:\n${leaked}")
    endif()
  endforeach()
endif()

run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer -B ${WORK_DIR}/consumer -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${WORK_DIR}/consumer/consumer)

run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer_meter -B ${WORK_DIR}/consumer_meter -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_DISABLE_FIND_PACKAGE_CURL=ON -DCMAKE_DISABLE_FIND_PACKAGE_PostgreSQL=ON)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer_meter)
run(${WORK_DIR}/consumer_meter/consumer)

# pkg-config, as a Makefile would use it: its flags and nothing else (not
# --static, which Debian's libcurl.pc cannot answer). A shared library is
# found at run time through LD_LIBRARY_PATH, as an install outside the
# system's directories would be.
set(ENV{PKG_CONFIG_PATH} ${libdir}/pkgconfig)
function(pc_consumer name package)  # pc_consumer(<name> <package> [compiler flags...])
  run(pkg-config --cflags --libs ${package})
  string(STRIP "${run_out}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(${CXX} ${ARGN} ${SOURCE_DIR}/consumer/main.cc -o ${WORK_DIR}/${name} ${flags})
  run(${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${libdir} ${WORK_DIR}/${name})
  message(STATUS "pkg-config ${package}: ${run_out}")
endfunction()
pc_consumer(pc_consumer forgemeter)
foreach(c IN LISTS COMPONENTS)
  string(TOUPPER ${c} upper)
  pc_consumer(pc_consumer_${c} forgemeter-${c} -DFM_PART_${upper})
endforeach()
message(STATUS "install: consumers built and run against ${prefix}")
