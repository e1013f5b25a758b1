// The held-token book: a forge's access_tokens answer given again only to
// the same App, installation and scope, while more than the margin is left;
// forgotten at expiry, on DELETE, and bounded.
#include <doctest/doctest.h>

#include <ctime>
#include <string>
#include <thread>

#include "forgemeter/testing/manual_clock.h"
#include "proxy/held_tokens.h"

using namespace forgemeter;
using namespace forgemeter::proxy;
using namespace std::chrono_literals;

namespace {

const UtcMillis kStart{std::chrono::sys_days{std::chrono::year{2026} / 9 / 30} + 14h};

// The forge's answer for `token`, expiring at kStart + `in` (whole seconds).
std::string answer(const std::string& token, std::chrono::seconds in) {
  const std::time_t at = std::chrono::system_clock::to_time_t(kStart + in);
  std::tm tm{};
  gmtime_r(&at, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return R"({"token":")" + token + R"(","expires_at":")" + text + R"(","permissions":{}})";
}

}  // namespace

TEST_CASE("the same App, installation and scope get the forge's answer verbatim while more than the margin is left") {
  ManualClock clock(kStart);
  HeldTokens book({.margin = 60s, .clock = &clock});
  const HeldKey key{.app = 7, .installation = 101, .scope = "{}"};
  CHECK_FALSE(book.find(key));
  const std::string body = answer("ghs_one", 3600s);
  REQUIRE(book.hold(key, body, "application/json; charset=utf-8"));
  const auto held = book.find(key);
  REQUIRE(held);
  CHECK(held->body == body);
  CHECK(held->content_type == "application/json; charset=utf-8");
  CHECK(held->token == "ghs_one");
  clock.advance(3540s - 1ms);
  CHECK(book.find(key));
  clock.advance(1ms);  // a minute left: minted afresh
  CHECK_FALSE(book.find(key));
}

TEST_CASE("never across Apps, installations or scopes") {
  ManualClock clock(kStart);
  HeldTokens book({.clock = &clock});
  REQUIRE(book.hold({7, 101, "{}"}, answer("ghs_one", 3600s), "application/json"));
  CHECK_FALSE(book.find({8, 101, "{}"}));
  CHECK_FALSE(book.find({7, 102, "{}"}));
  CHECK_FALSE(book.find({7, 101, R"({"repositories":["r"]})"}));
  CHECK(book.find({7, 101, "{}"}));
}

TEST_CASE("an answer without a token, or with too little left, is not held") {
  ManualClock clock(kStart);
  HeldTokens book({.margin = 60s, .clock = &clock});
  CHECK_FALSE(book.hold({7, 101, "{}"}, R"({"message":"Bad credentials"})", "application/json"));
  CHECK_FALSE(book.hold({7, 101, "{}"}, answer("ghs_one", 60s), "application/json"));
  CHECK_FALSE(book.hold({7, 101, "{}"}, answer("", 3600s), "application/json"));
  CHECK(book.size() == 0);
}

TEST_CASE("DELETE of the held token forgets it; a newer mint takes the place of the older") {
  ManualClock clock(kStart);
  HeldTokens book({.clock = &clock});
  REQUIRE(book.hold({7, 101, "{}"}, answer("ghs_one", 3600s), "application/json"));
  REQUIRE(book.hold({7, 101, "{}"}, answer("ghs_two", 3600s), "application/json"));
  CHECK(book.find({7, 101, "{}"})->token == "ghs_two");
  CHECK(book.forget("ghs_one") == 0);
  CHECK(book.forget("ghs_two") == 1);
  CHECK_FALSE(book.find({7, 101, "{}"}));
}

TEST_CASE("bounded: past the bound the expired go first, then the one expiring soonest") {
  ManualClock clock(kStart);
  HeldTokens book({.max_answers = 2, .margin = 1s, .clock = &clock});
  REQUIRE(book.hold({7, 1, "{}"}, answer("ghs_a", 10s), "application/json"));
  REQUIRE(book.hold({7, 2, "{}"}, answer("ghs_b", 3600s), "application/json"));
  clock.advance(20s);  // a's expired
  REQUIRE(book.hold({7, 3, "{}"}, answer("ghs_c", 1800s), "application/json"));
  CHECK(book.size() == 2);
  CHECK(book.find({7, 2, "{}"}));
  REQUIRE(book.hold({7, 4, "{}"}, answer("ghs_d", 3000s), "application/json"));
  CHECK(book.size() == 2);
  CHECK_FALSE(book.find({7, 3, "{}"}));  // expired soonest of those left
  CHECK(book.find({7, 2, "{}"}));
  CHECK(book.find({7, 4, "{}"}));
}

TEST_CASE("one mint per key at a time: the others await it, bounded") {
  HeldTokens book;
  const HeldKey key{7, 101, "{}"};
  REQUIRE(book.claim(key));
  CHECK_FALSE(book.claim(key));
  CHECK(book.claim({7, 102, "{}"}));  // another key mints at once
  CHECK_FALSE(book.await(key, 20ms));
  std::thread minter([&] {
    std::this_thread::sleep_for(20ms);  // the mint on the wire
    book.settle(key);
  });
  CHECK(book.await(key, 10s));
  minter.join();
  CHECK(book.claim(key));
}
