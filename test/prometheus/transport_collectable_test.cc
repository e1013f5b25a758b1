// Transport::figures() and a TransportCollectable against the loopback forge:
// requests held by /hold/<key> are in flight (with the secondary limits on,
// which count them, and off); a failed hop gives its place back; a paused
// installation, a paced lane and the in-flight limit each show as waiting of
// their cause; installations past max_installations fold into "other". The
// collectable's families, serialized by prometheus-cpp, say the same numbers,
// and promtool finds the exposition clean.
#include <doctest/doctest.h>
#include <prometheus/text_serializer.h>

#include <atomic>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "forgemeter/transport_collectable.h"
#include "support/eventually.h"
#include "support/promtool.h"
#include "transport/transport_rig.h"

using namespace fmtest;
using forgemeter::InstallationLoad;
using forgemeter::Request;
using forgemeter::SecondaryLimitOptions;
using forgemeter::Transport;
using forgemeter::TransportFigures;
using forgemeter::WaitCause;

namespace {

// The figures of `installation` (or of the folded `other`); all 0 when absent.
InstallationLoad load_of(const TransportFigures& f, std::uint64_t installation, bool other = false) {
  for (const auto& l : f.installations)
    if (l.other == other && (other || l.installation == installation)) return l;
  return {};
}
bool listed(const TransportFigures& f, std::uint64_t installation) {
  for (const auto& l : f.installations)
    if (!l.other && l.installation == installation) return true;
  return false;
}
std::uint64_t waiting(const Transport& t, std::uint64_t installation, WaitCause c) {
  return load_of(t.figures(), installation).waiting[static_cast<std::size_t>(c)];
}

std::string exposition(const Transport& t) {
  return prometheus::TextSerializer().Serialize(forgemeter::TransportCollectable(t).Collect());
}
bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

Request held(Rig& rig, const std::string& key, std::uint64_t installation) {
  Request r = Rig::get_request(rig.url("api.forge.test", "/hold/" + key), installation);
  return r;
}

}  // namespace

TEST_CASE("requests held on the wire are in flight, per installation, then 0; with the limits on and off") {
  for (const bool limits : {true, false}) {
    CAPTURE(limits);
    Rig rig({.clock = &forgemeter::system_clock(), .threads = 16});
    forgemeter::TransportOptions o;
    if (!limits) o.rate_limits.secondary_limits = SecondaryLimitOptions::off();
    auto t = rig.make_transport(o);
    std::vector<std::jthread> senders;
    for (int i = 0; i < 3; ++i) senders.emplace_back([&] { CHECK(t->perform(held(rig, "w", 7)).ok()); });
    for (int i = 0; i < 2; ++i) senders.emplace_back([&] { CHECK(t->perform(held(rig, "w", 0)).ok()); });
    REQUIRE(rig.forge().await_held("w", 5, 10s));
    const TransportFigures f = t->figures();
    CHECK(load_of(f, 7).in_flight == 3);
    CHECK(load_of(f, 0).in_flight == 2);
    REQUIRE(f.installations.size() == 2);
    CHECK(f.installations[0].installation == 0);  // 0 first, ascending
    const std::string text = exposition(*t);
    CHECK(has_line(text, R"(forgemeter_requests_in_flight{installation="7"} 3)"));
    CHECK(has_line(text, R"(forgemeter_requests_in_flight{installation="0"} 2)"));
    CAPTURE(text);
    CHECK(has_line(text, R"(forgemeter_requests_waiting{installation="7",cause="pacing"} 0)"));
    CHECK(promtool_check_metrics(text) == "");
    rig.forge().release("w");
    senders.clear();
    const TransportFigures after = t->figures();
    CHECK(load_of(after, 7).in_flight == 0);
    CHECK(load_of(after, 0).in_flight == 0);
    CHECK(listed(after, 7));  // seen: its series stays, at 0
  }
}

TEST_CASE("a hop that fails gives its in-flight place back") {
  for (const bool limits : {true, false}) {
    CAPTURE(limits);
    Rig rig({.clock = &forgemeter::system_clock()});
    forgemeter::TransportOptions o;
    if (!limits) o.rate_limits.secondary_limits = SecondaryLimitOptions::off();
    auto t = rig.make_transport(o);
    // The forge closes the connection mid-body: the exchange fails.
    const auto r = t->perform(Rig::get_request(rig.url("api.forge.test", "/drop"), 7));
    CHECK(r.error.code == forgemeter::TransportErrc::connection_dropped);
    CHECK(load_of(t->figures(), 7).in_flight == 0);
    CHECK(listed(t->figures(), 7));
  }
}

TEST_CASE("a paused installation's request waits with cause pause until stopped") {
  Rig rig({.clock = &forgemeter::system_clock()});
  rig.forge().limit_secondary(7, 120s);
  auto t = rig.make_transport({.rate_limits = {.pause = {.max_wait = 300s}}});  // the pause is waited out, not refused
  const std::string url = rig.url("api.forge.test", "/repos/o/r/pulls/1");
  CHECK(t->perform(Rig::get_request(url, 7)).error.code == forgemeter::TransportErrc::secondary_rate_limited);
  std::stop_source stop;
  std::jthread waiter([&] {
    Request r = Rig::get_request(url, 7);
    r.stop = stop.get_token();
    r.timeout = 300s;
    CHECK(t->perform(r).error.code == forgemeter::TransportErrc::cancelled);
  });
  CHECK(eventually([&] { return waiting(*t, 7, WaitCause::pause) == 1; }));
  CHECK(has_line(exposition(*t), R"(forgemeter_requests_waiting{installation="7",cause="pause"} 1)"));
  CHECK(load_of(t->figures(), 7).in_flight == 0);
  stop.request_stop();
  waiter.join();
  CHECK(waiting(*t, 7, WaitCause::pause) == 0);
}

TEST_CASE("a paced lane's request waits with cause pacing until stopped") {
  Rig rig({.clock = &forgemeter::system_clock()});
  // Keep the whole budget: once read, nothing is left to pace out; unread, one probe per 30 s.
  forgemeter::TransportOptions o{
      .rate_limits = {
          .pacing = {.lanes = {{.lane = forgemeter::Lane{"sweeper"}, .installation = 7, .keep_fraction = 1}}}}};
  o.rate_limits.pacing.tuning.probe_interval = 30s;
  auto t = rig.make_transport(o);
  Request r = Rig::get_request(rig.url("api.forge.test", "/echo"), 7);
  r.lane = forgemeter::Lane{"sweeper"};
  CHECK(t->perform(r).ok());  // the probe goes; the next waits for its pace
  std::stop_source stop;
  r.stop = stop.get_token();
  r.timeout = 0s;  // none: a pace past the request's timeout is refused at once, never waited
  std::jthread waiter([&] { CHECK(t->perform(r).error.code == forgemeter::TransportErrc::cancelled); });
  CHECK(eventually([&] { return waiting(*t, 7, WaitCause::pacing) == 1; }));
  CHECK(waiting(*t, 7, WaitCause::secondary) == 0);
  stop.request_stop();
  waiter.join();
  CHECK(waiting(*t, 7, WaitCause::pacing) == 0);
}

TEST_CASE("a request held by max_in_flight waits with cause secondary, then goes") {
  Rig rig({.clock = &forgemeter::system_clock(), .threads = 4});
  SecondaryLimitOptions limits;
  limits.max_in_flight = 1;
  auto t = rig.make_transport({.rate_limits = {.secondary_limits = limits}});
  std::jthread first([&] { CHECK(t->perform(held(rig, "one", 7)).ok()); });
  REQUIRE(rig.forge().await_held("one", 1, 10s));
  std::jthread second([&] { CHECK(t->perform(held(rig, "one", 7)).ok()); });
  CHECK(eventually([&] { return waiting(*t, 7, WaitCause::secondary) == 1; }));
  CHECK(load_of(t->figures(), 7).in_flight == 1);
  rig.forge().release("one");
  first.join();
  second.join();
  const InstallationLoad l = load_of(t->figures(), 7);
  CHECK(l.in_flight == 0);
  CHECK(l.waiting[static_cast<std::size_t>(WaitCause::secondary)] == 0);
}

TEST_CASE("installations past max_installations fold into other; promtool finds it clean") {
  for (const bool limits : {true, false}) {
    CAPTURE(limits);
    Rig rig({.clock = &forgemeter::system_clock(), .threads = 8});
    forgemeter::TransportOptions o{.max_installations = 2};
    if (!limits) o.rate_limits.secondary_limits = SecondaryLimitOptions::off();
    auto t = rig.make_transport(o);
    for (std::uint64_t i = 1; i <= 2; ++i)
      CHECK(t->perform(Rig::get_request(rig.url("api.forge.test", "/echo"), i)).ok());
    std::vector<std::jthread> senders;
    for (std::uint64_t i = 3; i <= 4; ++i)
      senders.emplace_back([&, i] { CHECK(t->perform(held(rig, "many", i)).ok()); });
    REQUIRE(rig.forge().await_held("many", 2, 10s));
    const TransportFigures f = t->figures();
    REQUIRE(f.installations.size() == 3);
    CHECK(f.installations[0].installation == 1);
    CHECK(f.installations[1].installation == 2);
    CHECK(f.installations[2].other);
    CHECK(f.installations[2].in_flight == 2);
    const std::string text = exposition(*t);
    CHECK(has_line(text, R"(forgemeter_requests_in_flight{installation="other"} 2)"));
    CHECK(has_line(text, R"(forgemeter_requests_in_flight{installation="1"} 0)"));
    CHECK(promtool_check_metrics(text) == "");
    rig.forge().release("many");
    senders.clear();
    CHECK(load_of(t->figures(), 0, true).in_flight == 0);
  }
}

TEST_CASE("max_installations 0 is refused at construction") {
  Rig rig;
  CHECK_THROWS_AS(rig.make_transport({.max_installations = 0}), std::invalid_argument);
}
