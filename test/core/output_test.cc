// What the commands write: the writers (a file, stdout), with errors that
// name the path.
#include <doctest/doctest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/output.h"

using forgemeter::core_detail::check_writable;
using forgemeter::core_detail::write_file;
using forgemeter::core_detail::WriteError;

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
