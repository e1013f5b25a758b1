// Nothing a forge sends can break a line: hostile rate-limit values.
#include <doctest/doctest.h>

#include "transport_rig.h"

using namespace fmtest;

TEST_CASE("hostile rate-limit header values never break a meter line") {
  Rig rig;
  for (const char* kind : {"huge", "nonnumeric", "negative", "control", "syntax"}) {
    CAPTURE(kind);
    auto res = rig.get(rig.url("api.forge.test", std::string("/hostile?kind=") + kind), 77);
    CHECK(res.ok());
    CHECK(res.status == 200);
    // Every spelling carries the same hostile value, the resource's name too.
    const auto value = res.header("X-RateLimit-Remaining");
    REQUIRE(value);
    for (const char* name : {"X-RateLimit-Resource", "X-RateLimit-Used", "RateLimit-Remaining", "RateLimit-Limit",
                             "RateLimit-Reset", "RateLimit-Observed", "Retry-After"})
      CHECK(res.header(name) == value);
  }
  // A good reading after the hostile ones is the one the budget line keeps.
  REQUIRE(rig.get(rig.url("api.forge.test", "/echo"), 77).ok());
  const auto c = rig.counted();
  CHECK(c.malformed.empty());
  for (const auto& line : c.lines) {
    CAPTURE(line);
    for (unsigned char ch : line) CHECK((ch >= 0x20 && ch != 0x7f));
  }
  CHECK(c.total == 6);
  CHECK(c.lowest(77) == 4994);
}
