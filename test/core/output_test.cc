// What the commands write: terminal_text() (anyone's text as a terminal may
// show it) and the writers (a file, stdout), with errors that name the path.
#include <doctest/doctest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/output.h"
#include "core/terminal_text.h"

using forgemeter::core_detail::check_writable;
using forgemeter::core_detail::has_control_bytes;
using forgemeter::core_detail::terminal_text;
using forgemeter::core_detail::write_file;
using forgemeter::core_detail::WriteError;

TEST_CASE("terminal_text: C0, DEL and C1 controls as \\xNN; everything else unchanged") {
  CHECK(terminal_text("lease \"a\x1b[31m\"") == "lease \"a\\x1b[31m\"");
  CHECK(terminal_text("tab\there\x7f") == "tab\\x09here\\x7f");
  CHECK(terminal_text("c1 \xc2\x9b!") == "c1 \\xc2\\x9b!");                            // CSI as UTF-8
  CHECK(terminal_text("caf\xc3\xa9 \\ \xff broken") == "caf\xc3\xa9 \\ \xff broken");  // é, a backslash, a stray byte
  CHECK(has_control_bytes("a\nb"));
  CHECK_FALSE(has_control_bytes("caf\xc3\xa9"));
}

TEST_CASE("write_file writes the whole text; check_writable leaves no file behind") {
  const std::string path = "/tmp/fm_core_output_test." + std::to_string(::getpid());
  check_writable(path);
  CHECK(::access(path.c_str(), F_OK) != 0);  // proven writable, not created
  write_file(path, "one\ntwo\n");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "one\ntwo\n");
  check_writable(path);  // an existing file is left as it is
  std::ifstream again(path);
  std::stringstream kept;
  kept << again.rdbuf();
  CHECK(kept.str() == "one\ntwo\n");
  ::unlink(path.c_str());
}

TEST_CASE("a path that cannot be written: WriteError naming it and what to do") {
  const std::string path = "/nonexistent-dir/fm/out.html";
  try {
    write_file(path, "x");
    FAIL("no WriteError");
  } catch (const WriteError& e) {
    const std::string what = e.what();
    CHECK(what.find("cannot write '" + path + "'") != std::string::npos);
    CHECK(what.find("choose a writable path") != std::string::npos);
  }
  CHECK_THROWS_AS(check_writable(path), WriteError);
}
