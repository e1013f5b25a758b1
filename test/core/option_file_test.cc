// A file an option names, read with a bound (/dev/zero ends at once), and
// the privacy check of a file holding a secret; ascii_text() for the names
// that are ASCII by rule.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <string>

#include "core/option_file.h"
#include "core/terminal_text.h"
#include "support/temp_files.h"

using forgemeter::core_detail::ascii_text;
using forgemeter::core_detail::read_option_file;
using forgemeter::core_detail::too_open;

TEST_CASE("read_option_file: the whole file up to the bound; past it, a directory or missing: the problem") {
  fmtest::TempDir dir;
  fmtest::write_file(dir.file("f"), "12345");
  CHECK(read_option_file(dir.file("f"), 5).text == "12345");
  CHECK_FALSE(read_option_file(dir.file("f"), 5).problem);
  const auto over = read_option_file(dir.file("f"), 4);
  CHECK(over.text.empty());
  CHECK(over.problem == "is longer than 4 bytes, the most this option reads");
  CHECK(read_option_file("/dev/zero", 1 << 16).problem == "is longer than 65536 bytes, the most this option reads");
  CHECK(read_option_file(dir.path(), 10).problem == "is a directory, not a file");
  CHECK(read_option_file(dir.file("none"), 10).problem == "No such file or directory");
}

TEST_CASE("too_open: any access of group or others, with the fix") {
  CHECK_FALSE(too_open(S_IFREG | 0600, "/x", "a token"));
  CHECK_FALSE(too_open(S_IFREG | 0400, "/x", "a token"));
  CHECK(too_open(S_IFREG | 0640, "/x", "a token") ==
        "permissions 0640 are too open: it may hold a token, so it must not be accessible by group or others; run: "
        "chmod 600 /x");
  CHECK(too_open(S_IFREG | 0602, "/x", "a token"));
}

TEST_CASE("ascii_text: every byte outside printable ASCII as \\xNN, a lone 0x9b and 0xff too") {
  CHECK(ascii_text("sweeper-1") == "sweeper-1");
  CHECK(ascii_text("a\x9b[31m\xff\x1b\x7f") == "a\\x9b[31m\\xff\\x1b\\x7f");
}
