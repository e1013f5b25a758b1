// LeaseCollectable: the families prometheus-cpp serializes from it say what
// LeaseMetrics::prometheus() says — the same HELP and TYPE lines and the same
// samples (names, labels, values; the histogram's buckets, +Inf, sum and
// count) — for figures fed as a campaign feeds them (a held term, changes of
// hands, answered calls in several buckets, errors), under a hostile lease
// name (quotes, a backslash, a line feed, an ESC); promtool finds both clean.
#include <doctest/doctest.h>
#include <prometheus/text_serializer.h>

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "forgemeter/lease_collectable.h"
#include "forgemeter/testing/manual_clock.h"
#include "lease/metrics_state.h"
#include "lease/term_state.h"
#include "support/promtool.h"

using namespace forgemeter;
using namespace std::chrono;

namespace {

struct Exposition {
  std::set<std::string> heads;            // the # HELP and # TYPE lines
  std::map<std::string, double> samples;  // name{labels, in order, le as a number} -> value
};

// One sample line's series, its label values unescaped and `le` read as a number.
std::string series_of(const std::string& line, std::size_t& value_at) {
  const auto brace = line.find('{');
  std::string key = line.substr(0, brace) + "{";
  std::size_t i = brace + 1;
  while (line[i] != '}') {
    const auto eq = line.find('=', i);
    const std::string name = line.substr(i, eq - i);
    std::string value;
    for (i = eq + 2; line[i] != '"'; ++i) {
      if (line[i] == '\\')
        value += line[++i] == 'n' ? '\n' : line[i];
      else
        value += line[i];
    }
    if (name == "le" && value != "+Inf") value = std::to_string(std::stod(value));
    key += name + "=" + value + ";";
    i += line[i + 1] == ',' ? 2 : 1;
  }
  value_at = i + 2;
  return key + "}";
}

Exposition parse(const std::string& text) {
  Exposition e;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      e.heads.insert(line);
      continue;
    }
    std::size_t at = 0;
    const std::string key = series_of(line, at);
    CHECK_MESSAGE(e.samples.emplace(key, std::stod(line.substr(at))).second, "twice: " << key);
  }
  return e;
}

LeaseResult granted() { return {.status = LeaseStatus::granted, .holder = "host-a", .term = 7}; }

}  // namespace

TEST_CASE("a LeaseCollectable's families serialized say what LeaseMetrics::prometheus() says") {
  const std::string name = "merge \"gate\" \\ sweeper\nsecond line \x1b[31m red";
  ManualClock clock(UtcMillis{sys_days{2026y / 9 / 30} + hours{14}});
  LeaseMetrics metrics;
  LeaseMetrics::State& s = metrics.state();
  s.attach(name, minutes(3), clock);
  const SteadyTime sent = clock.steady_now();
  const WallTime wall_sent = clock.now();
  clock.advance(milliseconds(3));
  s.call(LeaseOp::acquire, sent, granted(), false);  // 3 ms
  s.proven(wall_sent);
  s.held_by("host-b");
  s.held_by("host-a");  // a change of hands
  s.term_began(std::make_shared<Term::State>(clock, 7, clock.now(), clock.steady_now() + minutes(2)));
  clock.advance(milliseconds(300));
  s.call(LeaseOp::renew, sent, granted(), false);                // 303 ms
  s.call(LeaseOp::renew, clock.steady_now(), granted(), false);  // 0 ms
  s.call(LeaseOp::release, sent, LeaseResult{}, false);          // no answer: an error
  s.call(LeaseOp::inspect, sent, LeaseResult{}, true);           // cut short: neither

  const LeaseFigures f = metrics.figures();
  REQUIRE(f.leader);
  REQUIRE(f.term == 7);
  REQUIRE(f.changes == 1);
  REQUIRE(f.ops[static_cast<std::size_t>(LeaseOp::renew)].count == 2);

  const std::string text = metrics.prometheus();
  const std::string got = prometheus::TextSerializer().Serialize(LeaseCollectable(metrics).Collect());
  CAPTURE(text);
  CAPTURE(got);
  const Exposition want = parse(text);
  const Exposition have = parse(got);
  CHECK(have.heads == want.heads);
  REQUIRE(have.samples.size() == want.samples.size());
  CHECK(want.samples.size() == 6 + 4 * (kLeaseStoreBuckets.size() + 3) + 4);
  for (const auto& [key, value] : want.samples) {
    CAPTURE(key);
    const auto it = have.samples.find(key);
    REQUIRE(it != have.samples.end());
    // prometheus-cpp writes 16 significant digits, the text the shortest exact form.
    CHECK(std::fabs(it->second - value) <= 1e-15 * std::fabs(value));
  }
  CHECK(want.samples.at("forgemeter_lease_leader{lease=merge \"gate\" \\ sweeper\nsecond line %1B[31m red;}") == 1);
  CHECK(fmtest::promtool_check_metrics(text) == "");
  CHECK(fmtest::promtool_check_metrics(got) == "");
  s.detach();
}
