# cmake -P man_page.cmake -DBIN=<forgemeter> -DHELP2MAN=<help2man> -DOUT=<forgemeter.1>
#
# forgemeter.1 from the program's own --help texts: help2man makes the page
# from `forgemeter --help` and `--version`; every command gets a section of
# its own, roff the program makes from the same texts (`forgemeter __man
# CMD…`), the commands found by asking the program (`forgemeter __complete
# … ""`), so the page follows the parser.
cmake_minimum_required(VERSION 3.20)

function(candidates out)  # the words `forgemeter __complete ARGN ""` offers
  execute_process(COMMAND "${BIN}" __complete ${ARGN} "" OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BIN} __complete failed (${rc})")
  endif()
  string(REGEX REPLACE "\n$" "" text "${text}")
  string(REPLACE "\n" ";" words "${text}")
  list(FILTER words EXCLUDE REGEX "^__")
  set(${out} "${words}" PARENT_SCOPE)
endfunction()

# A command's section, in roff, from the program (`forgemeter __man CMD…`:
# the --help texts laid out for roff to fill; src/cli/man_section.h).
function(section path out)
  execute_process(COMMAND "${BIN}" __man ${path} OUTPUT_VARIABLE roff RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BIN} __man ${path} failed (${rc})")
  endif()
  set(${out} "${${out}}${roff}" PARENT_SCOPE)
endfunction()

set(body "")
candidates(top)
foreach(cmd IN LISTS top)
  candidates(subs ${cmd})
  if(subs)
    foreach(sub IN LISTS subs)
      section("${cmd};${sub}" body)
    endforeach()
  else()
    section("${cmd}" body)
  endif()
endforeach()

# The page's footer wants "forgemeter X.Y.Z", not the whole --version line
# with every library's version after it.
execute_process(COMMAND "${BIN}" --version OUTPUT_VARIABLE version_line RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT version_line MATCHES "^forgemeter ([^ \n]+)")
  message(FATAL_ERROR "${BIN} --version failed (${rc}) or did not start with 'forgemeter X.Y.Z'")
endif()
set(version "${CMAKE_MATCH_1}")

get_filename_component(dir "${OUT}" DIRECTORY)
set(include "${dir}/forgemeter.h2m")
file(WRITE "${include}" "[COMMANDS]\n${body}\n[SEE ALSO]\nThe project's README.md, and \\fBcurl\\fR(1) for fetch's options.\n")
execute_process(
  COMMAND "${HELP2MAN}" --no-info --section=1 "--version-string=${version}"
          "--name=forge HTTP metering and leader leases for replicated services"
          "--include=${include}" "--output=${OUT}" "${BIN}"
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed (${rc}): ${err}")
endif()
# No hyphenation anywhere (the man macros turn it on again at each paragraph
# unless HY is 0): an option or a URL broken at a line's end reads as another.
file(READ "${OUT}" page)
string(REGEX REPLACE "(\n\\.TH [^\n]*\n)" "\\1.nr HY 0\n.nh\n" page "${page}")
file(WRITE "${OUT}" "${page}")
