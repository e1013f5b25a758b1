// Anyone's text as a terminal may show it: terminal_text(), its bounded form
// and ascii_text().
#include <doctest/doctest.h>

#include <string>

#include "core/terminal_text.h"

using forgemeter::core_detail::ascii_text;
using forgemeter::core_detail::has_control_bytes;
using forgemeter::core_detail::terminal_text;

TEST_CASE("terminal_text: C0, DEL and C1 controls as \\xNN; everything else unchanged") {
  CHECK(terminal_text("lease \"a\x1b[31m\"") == "lease \"a\\x1b[31m\"");
  CHECK(terminal_text("tab\there\x7f") == "tab\\x09here\\x7f");
  CHECK(terminal_text("c1 \xc2\x9b!") == "c1 \\xc2\\x9b!");                            // CSI as UTF-8
  CHECK(terminal_text("caf\xc3\xa9 \\ \xff broken") == "caf\xc3\xa9 \\ \xff broken");  // é, a backslash, a stray byte
  CHECK(has_control_bytes("a\nb"));
  CHECK_FALSE(has_control_bytes("caf\xc3\xa9"));
}

TEST_CASE("terminal_text: the line and paragraph separators as bytes, the rest of U+20xx kept") {
  CHECK(terminal_text("a\xe2\x80\xa8"
                      "b\xe2\x80\xa9"
                      "c") == "a\\xe2\\x80\\xa8b\\xe2\\x80\\xa9c");
  CHECK(terminal_text("a \xe2\x80\x94 b\xe2\x80\xa6") == "a \xe2\x80\x94 b\xe2\x80\xa6");  // — and … pass
  CHECK(has_control_bytes("\xe2\x80\xa9"));
  CHECK(terminal_text("\xe2\x80") == "\xe2\x80");  // a cut sequence is not one
}

TEST_CASE("terminal_text: escaping twice changes nothing") {
  const std::string once = terminal_text("a\x1b[2J\\x07\xc2\x85\xe2\x80\xa8");
  CHECK(terminal_text(once) == once);
  CHECK_FALSE(has_control_bytes(once));
}

TEST_CASE("terminal_text with a bound: whole text within it, cut on a character with … past it") {
  CHECK(terminal_text("short\n", 6) == "short\\x0a");
  CHECK(terminal_text("", 0).empty());
  CHECK(terminal_text("abcdef", 3) == "abc…");
  CHECK(terminal_text("abcdef", 0) == "…");
  // "é" is two bytes: a bound inside it keeps the text before it.
  CHECK(terminal_text("caf\xc3\xa9!", 4) == "caf…");
  CHECK(terminal_text("caf\xc3\xa9!", 5) == "caf\xc3\xa9…");
  CHECK(terminal_text("\xf0\x9f\xa6\x80 crab", 3) == "…");  // 🦀 is four bytes
  // The bound counts the text's bytes, not the escapes': a control byte is kept whole.
  CHECK(terminal_text("\x1b\x1b\x1b\x1b", 2) == "\\x1b\\x1b…");
  // A C1 control at the bound is left out whole, never split into a lone lead byte.
  CHECK(terminal_text("ab\xc2\x9b", 3) == "ab…");
  // Not UTF-8: a run of continuation bytes is cut at the bound.
  CHECK(terminal_text("\x80\x80\x80\x80\x80\x80", 5) == "\x80\x80\x80\x80\x80…");
}

TEST_CASE("ascii_text: every byte outside printable ASCII as \\xNN") {
  CHECK(ascii_text("lane\x9b\xff ok") == "lane\\x9b\\xff ok");
  CHECK(ascii_text("caf\xc3\xa9") == "caf\\xc3\\xa9");
}
