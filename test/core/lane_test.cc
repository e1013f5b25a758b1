#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <thread>

#include "forgemeter/lane.h"

using forgemeter::Lane;
using forgemeter::LaneScope;

TEST_CASE("lane names: the valid ones") {
  for (std::string n : {std::string("a"), std::string("0"), std::string("merge-gate-sweeper"),
                        std::string("board.sync_2"), std::string(63, 'x')}) {
    CAPTURE(n);
    CHECK(Lane(n).name() == n);
  }
}

TEST_CASE("lane names: every rule refused with a reason, never rewritten") {
  struct Row {
    std::string name;
    std::string reason_part;
  };
  for (const Row& r : {Row{"", "empty"}, Row{std::string(64, 'x'), "64 bytes"}, Row{"Sweeper", "'S'"},
                       Row{"a b", "byte 32"}, Row{"-a", "start"}, Row{".a", "start"}, Row{"other", "reserved"},
                       Row{"a\nb", "byte 10"}, Row{"caf\xc3\xa9", "byte 195"}, Row{"a=b", "'='"}, Row{"a,b", "','"}}) {
    CAPTURE(r.name);
    const auto why = Lane::check(r.name);
    REQUIRE(why.has_value());
    CHECK(why->find(r.reason_part) != std::string::npos);
    CHECK_FALSE(Lane::parse(r.name).has_value());
    CHECK_THROWS_AS(Lane{r.name}, std::invalid_argument);
  }
}

TEST_CASE("lane error message never carries control bytes") {
  try {
    Lane bad(std::string("x\n\x1b[31m"));
    FAIL("accepted");
  } catch (const std::invalid_argument& e) {
    for (char c : std::string(e.what())) CHECK(static_cast<unsigned char>(c) >= 0x20);
  }
}

TEST_CASE("lanes compare by name; other sorts first") {
  CHECK(Lane("a") == Lane("a"));
  CHECK(Lane::other().is_other());
  CHECK(Lane::other().name() == "other");
  CHECK(Lane::other() < Lane("0"));
  CHECK(Lane("a") < Lane("b"));
  CHECK(Lane("b") > Lane("a-"));
}

TEST_CASE("lane scopes nest, innermost wins, and are per thread") {
  CHECK(forgemeter::current_lane().is_other());
  {
    LaneScope outer(Lane("outer"));
    CHECK(forgemeter::current_lane() == Lane("outer"));
    {
      LaneScope inner(Lane("inner"));
      CHECK(forgemeter::current_lane() == Lane("inner"));
      std::thread([] { CHECK(forgemeter::current_lane().is_other()); }).join();
    }
    CHECK(forgemeter::current_lane() == Lane("outer"));
  }
  CHECK(forgemeter::current_lane().is_other());
}
