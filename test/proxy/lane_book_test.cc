// The lane of a proxied request: from its header or its path, bounded.
#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "proxy/lane_book.h"

using namespace forgemeter;
using namespace forgemeter::proxy;

TEST_CASE("the lane from /lanes/NAME/, the prefix stripped; or from the header") {
  LaneBook book;
  auto p = book.pick(std::nullopt, "/lanes/sweeper/repos/o/r");
  REQUIRE_FALSE(p.refused);
  CHECK(p.lane == Lane{"sweeper"});
  CHECK(p.path == "/repos/o/r");
  CHECK(p.base_path == "/lanes/sweeper");
  p = book.pick(std::nullopt, "/lanes/sweeper");
  CHECK(p.path == "/");
  CHECK(p.base_path == "/lanes/sweeper");
  p = book.pick("merge-gate", "/repos/o/r");
  CHECK(p.lane == Lane{"merge-gate"});
  CHECK(p.path == "/repos/o/r");
  CHECK(p.base_path.empty());
  p = book.pick(std::nullopt, "/repos/o/r");
  CHECK_FALSE(p.refused);
  CHECK_FALSE(p.lane);
  CHECK(p.path == "/repos/o/r");
  CHECK(book.pick(std::nullopt, "/lanesx/a").path == "/lanesx/a");  // not the prefix
  // Both given: they must agree.
  CHECK_FALSE(book.pick("sweeper", "/lanes/sweeper/x").refused);
  CHECK(book.pick("other-one", "/lanes/sweeper/x").refused);
}

TEST_CASE("a name the library refuses is refused, and never counted") {
  LaneBook book({.max_lanes = 2});
  for (std::string_view bad : {"", "Upper", "other", "-dash", "a b", "x/y"}) {
    CHECK(book.pick(bad, "/x").refused);
  }
  CHECK(book.pick(std::nullopt, "/lanes//x").refused);
  CHECK(book.pick(std::nullopt, "/lanes/UP/x").refused);
  CHECK(book.size() == 0);
}

TEST_CASE("named lanes: only those") {
  LaneBook book({.named = {"a", "b"}});
  CHECK(book.pick("a", "/x").lane == Lane{"a"});
  CHECK(book.pick(std::nullopt, "/lanes/b/x").lane == Lane{"b"});
  const auto c = book.pick("c", "/x");
  CHECK(c.refused);
  CHECK_FALSE(c.lane);
  CHECK(book.size() == 2);
  CHECK_THROWS_AS(LaneBook({.named = {"ok", "Not Ok"}}), std::invalid_argument);
}

TEST_CASE("at most max_lanes distinct names, from any number of threads") {
  LaneBook book({.max_lanes = 64});
  std::atomic<int> admitted{0}, refused{0}, lost{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        const auto p = book.pick("lane-" + std::to_string(t * 40 + i), "/x");
        (p.refused ? refused : admitted)++;
        // A name admitted once stays admitted.
        if (!p.refused && book.pick("lane-" + std::to_string(t * 40 + i), "/y").refused) ++lost;
      }
    });
  for (auto& t : threads) t.join();
  CHECK(admitted == 64);
  CHECK(lost == 0);
  CHECK(refused == 8 * 40 - 64);
  CHECK(book.size() == 64);
}
