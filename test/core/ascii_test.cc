// Protocol text compared, lowered and trimmed as ASCII, whatever the locale.
#include <doctest/doctest.h>

#include <clocale>
#include <string>

#include "core/ascii.h"

using namespace forgemeter::core_detail;

TEST_CASE("iequals: same names in any ASCII case, nothing else") {
  CHECK(iequals("ETag", "etag"));
  CHECK(iequals("", ""));
  CHECK_FALSE(iequals("ETag", "ETags"));
  CHECK_FALSE(iequals("a", "b"));
  CHECK_FALSE(iequals("\xc3\x89", "\xc3\xa9"));  // É and é: not ASCII, not folded
  CHECK_FALSE(iequals("[", "{"));                // 0x5B and 0x7B differ by 0x20 but are not letters
  CHECK(istarts_with("Bearer abc", "bearer "));
  CHECK_FALSE(istarts_with("Bear", "bearer"));
}

TEST_CASE("ascii_lowercase: A-Z only, in any locale") {
  std::setlocale(LC_ALL, "tr_TR.UTF-8");  // where present, tolower('I') is not 'i'
  CHECK(ascii_lowercase("Api.GitHub.COM") == "api.github.com");
  CHECK(ascii_lowercase("I\xc3\x89") == "i\xc3\x89");
  std::setlocale(LC_ALL, "C");
}

TEST_CASE("trimmed: OWS by default, every ASCII space when asked") {
  CHECK(trimmed(" \t token \t") == "token");
  CHECK(trimmed("a b") == "a b");
  CHECK(trimmed(" \t ").empty());
  CHECK(trimmed("value\r\n") == "value\r\n");
  CHECK(trimmed("value\r\n", true) == "value");
  CHECK(trimmed("\f\v x \n", true) == "x");
}

TEST_CASE("hex_digit: 0-9, a-f and A-F, nothing else") {
  CHECK(hex_digit('0') == 0);
  CHECK(hex_digit('9') == 9);
  CHECK(hex_digit('a') == 10);
  CHECK(hex_digit('F') == 15);
  CHECK(hex_digit('g') == -1);
  CHECK(hex_digit('/') == -1);  // just below '0'
  CHECK(hex_digit('\xc0') == -1);
}
