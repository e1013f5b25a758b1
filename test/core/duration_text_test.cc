// Durations as text: what duration_text() prints is short and stable, and
// parse_duration() reads it back exactly (the command line takes the form the
// tool prints).
#include <doctest/doctest.h>

#include <random>

#include "core/duration_text.h"

using namespace std::chrono_literals;
using forgemeter::Duration;
using forgemeter::core_detail::duration_text;
using forgemeter::core_detail::kMaxParsedDuration;
using forgemeter::core_detail::parse_duration;

TEST_CASE("duration text: short and stable") {
  CHECK(duration_text(3min) == "3m");
  CHECK(duration_text(90s) == "1m30s");
  CHECK(duration_text(1500ms) == "1.5s");
  CHECK(duration_text(45s) == "45s");
  CHECK(duration_text(250ms) == "250ms");
  CHECK(duration_text(250us) == "0.25ms");
  CHECK(duration_text(2h + 30min) == "2h30m");
  CHECK(duration_text(1h + 5s) == "1h0m5s");
  CHECK(duration_text(2h) == "2h");
  CHECK(duration_text(0s) == "0s");
  CHECK(duration_text(-2s) == "-2s");
  CHECK(duration_text(75s + 250ms) == "1m15.25s");
}

TEST_CASE("duration parse: the printed forms and the usual ones") {
  CHECK(parse_duration("90s") == Duration(90s));
  CHECK(parse_duration("1m30s") == Duration(90s));
  CHECK(parse_duration("1.5s") == Duration(1500ms));
  CHECK(parse_duration("500ms") == Duration(500ms));
  CHECK(parse_duration("0.25ms") == Duration(250us));
  CHECK(parse_duration("1h") == Duration(1h));
  CHECK(parse_duration("2h30m") == Duration(2h + 30min));
  CHECK(parse_duration("1h0m5s") == Duration(1h + 5s));
  CHECK(parse_duration("1s500ms") == Duration(1500ms));
  CHECK(parse_duration("0s") == Duration(0s));
}

TEST_CASE("duration parse: anything else is refused, never wrapped") {
  for (const char* bad : {"", "90", "s", "1.s", ".5s", "-1s", "1m1h", "1s1s", "1ms1s", "1 s", "1S", "1sec", "1h ",
                          "1e3s", "+1s", "0x10s", "99999999999999999999h", "1000000h"})
    CHECK_MESSAGE(parse_duration(bad) == std::nullopt, bad);
  CHECK(parse_duration("876000h").has_value());  // within a century
  CHECK(*parse_duration("876000h") <= kMaxParsedDuration);
}

TEST_CASE("duration parse: every printed millisecond duration reads back exactly") {
  std::mt19937_64 rng(20261203);
  for (int i = 0; i < 20000; ++i) {
    const auto scale = std::int64_t{1} << (rng() % 40);  // 1 ms to ~35 years
    const Duration d =
        std::chrono::milliseconds(1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(scale)));
    const auto back = parse_duration(duration_text(d));
    REQUIRE_MESSAGE(back == d, duration_text(d));
  }
}
