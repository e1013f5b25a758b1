// A Retry-After past what the clocks can hold (a huge delay-seconds, a date
// in the year 9999) saturates the installation's pause instead of wrapping
// it into the past: the pause is past any pause.max_wait, so the next request
// of the installation fails at once, and nothing more reaches the forge.
#include <doctest/doctest.h>

#include <limits>

#include "transport/admission/installation_pauses.h"
#include "transport_rig.h"

using namespace fmtest;
using forgemeter::Request;
using forgemeter::TransportErrc;

namespace {

std::uint64_t received_from(Rig& rig, std::uint64_t installation) {
  std::uint64_t n = 0;
  for (const auto& r : rig.forge().truth().requests()) n += r.installation == installation ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("a Retry-After past the year 2262 pauses the installation past pause.max_wait; it never wraps") {
  Rig rig;
  // No default wait: a Retry-After read as absent would pause nothing, and the next request would go out.
  auto t = rig.make_transport(
      {.clock = &rig.clock(), .rate_limits = {.pause = {.wait = seconds(0), .max_wait = seconds(60)}}});
  const char* values[] = {
      "9223372037",                               // just past what a steady clock's nanoseconds hold from now
      "18446744073709551615",                     // 2^64-1 seconds
      "999999999999999999999999",                 // more digits than 64 bits hold
      "Fri,%2031%20Dec%209999%2023:59:59%20GMT",  // the last HTTP date
  };
  std::uint64_t installation = 500;
  for (const char* v : values) {
    CAPTURE(v);
    ++installation;
    const std::string bearer = "inst-" + std::to_string(installation);
    const Request limited{.url = rig.url("api.forge.test", "/status/403?retry_after=" + std::string(v)),
                          .installation = installation,
                          .bearer = bearer};
    REQUIRE(t->perform(limited).status == 403);
    const Request next{.url = rig.url("api.forge.test", "/repos/o/r"), .installation = installation, .bearer = bearer};
    const auto res = t->perform(next);
    CHECK(res.error.code == TransportErrc::installation_paused);
    CHECK(res.error.message.find("past any wait") != std::string::npos);
    CHECK(res.hops.empty());
    CHECK(received_from(rig, installation) == 1);
  }
}

TEST_CASE("pause_after saturates on both clocks, and keeps an ordinary wait exact") {
  namespace td = forgemeter::transport_detail;
  const forgemeter::SteadyTime now = forgemeter::SteadyTime{} + std::chrono::hours(24 * 365);
  const forgemeter::UtcMillis wall = mid_hour();
  const td::Pause minute = td::pause_after(std::chrono::seconds(60), now, wall);
  CHECK(minute.until == now + std::chrono::seconds(60));
  CHECK(minute.wall_until == wall + std::chrono::seconds(60));
  CHECK_FALSE(td::endless(minute));
  for (std::chrono::seconds huge : {std::chrono::seconds(1ll << 40), std::chrono::seconds(9'300'000'000),
                                    std::chrono::seconds(std::numeric_limits<std::int64_t>::max())}) {
    const td::Pause p = td::pause_after(huge, now, wall);
    CHECK(td::endless(p));
    CHECK(p.until == forgemeter::SteadyTime::max());
    CHECK(p.wall_until == forgemeter::UtcMillis::max());
  }
}
