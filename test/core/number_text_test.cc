// Numbers as the command line and the tool's files write them: digits only
// (a decimal: one '.'), within the caller's range, never wrapped into it.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "core/number_text.h"

using namespace forgemeter::core_detail;

TEST_CASE("parse_whole: digits within the range, nothing else") {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  CHECK(parse_whole("0", 0, 10) == 0u);
  CHECK(parse_whole("10", 0, 10) == 10u);
  CHECK(parse_whole("007", 0, 10) == 7u);
  CHECK(parse_whole("18446744073709551615", 0, kMax) == kMax);
  for (const char* bad : {"", "11", "+1", "-0", "-1", " 1", "1 ", "1.0", "1e1", "0x1", "18446744073709551616",
                          "99999999999999999999999", "١"})
    CHECK_MESSAGE(!parse_whole(bad, 0, 10).has_value(), bad);
  CHECK(!parse_whole("0", 1, 50).has_value());
  CHECK(!parse_whole("18446744073709551616", 0, kMax).has_value());  // past 2^64-1: refused, not wrapped
}

TEST_CASE("parse_decimal: digits with at most one '.', within the range") {
  CHECK(parse_decimal("600", 10, 5000) == 600.0);
  CHECK(parse_decimal("2.5", 0, 10) == 2.5);
  CHECK(parse_decimal(".5", 0, 10) == 0.5);
  CHECK(parse_decimal("5.", 0, 10) == 5.0);
  for (const char* bad : {"", ".", "1.2.3", "1e3", "inf", "nan", "-1", "+1", " 1", "0x10", "10.5"})
    CHECK_MESSAGE(!parse_decimal(bad, 0, 10).has_value(), bad);
}

TEST_CASE("the problem says the text, what it should be and the range, in words") {
  CHECK(whole_problem("0", "a replica count", 1, 50) == "'0' is not a replica count: give a whole number from 1 to 50");
  CHECK(decimal_problem("1e3", "a speed", 10, 5000) == "'1e3' is not a speed: give a number from 10 to 5000");
  CHECK(decimal_problem("x", "a speed", 0.5, 2.5) == "'x' is not a speed: give a number from 0.5 to 2.5");
}
