// The fleet model: sums per hour, lane, host/api, installation; replicas;
// partial hours; the budget view.
#include <doctest/doctest.h>

#include "cli/fleet.h"

using namespace forgemeter;
using namespace forgemeter::cli;
using namespace std::chrono;

namespace {

const sys_seconds kH15 = sys_days{2026y / 9 / 30} + 15h;
const sys_seconds kH16 = kH15 + 1h;

CountLine count(sys_seconds ending, std::vector<CountEntry> entries, HourNote note = {}) {
  CountLine l{ending, note, 0, std::move(entries)};
  for (const auto& e : l.entries) l.total += e.count;
  return l;
}

BudgetEntry budget(std::uint64_t inst, std::uint64_t remaining, seconds at, std::optional<std::uint64_t> limit = 5000) {
  return BudgetEntry{"api.github.com", Api::rest, inst, "", remaining, limit, at, std::nullopt};
}

}  // namespace

TEST_CASE("counts sum per hour, lane, host/api and installation across sources") {
  Fleet f;
  auto a = f.source("a.log"), b = f.source("b.log");
  CHECK(f.source("a.log") == a);
  f.add(a, count(kH15, {{"api.github.com", Api::rest, 101, "sweeper", 640}, {"api.github.com", Api::graphql, 0, "other", 60}}));
  f.add(b, count(kH15, {{"api.github.com", Api::rest, 101, "sweeper", 610}, {"api.github.com", Api::rest, 0, "other", 40}}));
  f.add(b, count(kH16, {{"uploads.github.com", Api::rest, 0, "other", 5}}, HourNote{std::nullopt, 10min}));

  auto hours = f.hours();
  REQUIRE(hours.size() == 2);
  const FleetHour& h = hours[0];
  CHECK(h.hour_ending == kH15);
  CHECK(h.requests == 1350);
  CHECK(h.lanes.at("sweeper") == 1250);
  CHECK(h.lanes.at("other") == 100);
  CHECK(h.lanes.begin()->first == "other");  // report order: other first
  CHECK(h.hosts.at(HostApi{"api.github.com", Api::rest}) == 1290);
  CHECK(h.hosts.at(HostApi{"api.github.com", Api::graphql}) == 60);
  CHECK(h.installations.at(101) == 1250);
  CHECK(h.installations.at(0) == 100);
  CHECK(h.budgets.at(BudgetKey{"api.github.com", Api::rest, 101}).requests == 1250);
  CHECK(h.sources == std::vector<std::uint32_t>{a, b});
  CHECK_FALSE(h.partial());
  CHECK(hours[1].partial());
  CHECK(hours[1].partial_sources == std::vector<std::uint32_t>{b});
  CHECK(hours[1].sources.size() == 1);
  CHECK(f.lines() == 3);
}

TEST_CASE("the budget view: lowest remaining across replicas, earliest zero, limit and over") {
  Fleet f;
  auto a = f.source("a"), b = f.source("b"), c = f.source("c");
  f.add(a, count(kH15, {{"api.github.com", Api::rest, 101, "sweeper", 3000}}));
  f.add(b, count(kH15, {{"api.github.com", Api::rest, 101, "sweeper", 2500}}));
  f.add(a, BudgetLine{kH15, {}, {budget(101, 0, 14h + 52min)}});
  f.add(b, BudgetLine{kH15, {}, {budget(101, 0, 14h + 41min + 7s)}});
  f.add(c, BudgetLine{kH15, {}, {budget(101, 12, 14h + 30min, 5000)}});

  auto h = f.hours().at(0);
  const BudgetView& v = h.budgets.at(BudgetKey{"api.github.com", Api::rest, 101});
  CHECK(v.requests == 5500);
  CHECK(*v.lowest == 0);
  CHECK(v.lowest_at == kH15 - 1h + 41min + 7s);  // the earlier of the two zeros
  CHECK(v.lowest_source == "b");
  CHECK(*v.limit == 5000);
  CHECK(v.over());
  CHECK(*v.exhausted_at == kH15 - 1h + 41min + 7s);
  CHECK(h.exhausted());
  CHECK(*h.first_exhausted_at() == kH15 - 1h + 41min + 7s);
  CHECK(h.lowest_budget() == &v);
}

TEST_CASE("--budget overrides the lines' limit; no limit means never over") {
  Fleet plain;
  auto s = plain.source("a");
  plain.add(s, count(kH15, {{"api.github.com", Api::rest, 7, "x", 900}}));
  plain.add(s, BudgetLine{kH15, {}, {budget(7, 100, 14h + 1min, std::nullopt)}});
  auto v = plain.hours().at(0).budgets.begin()->second;
  CHECK_FALSE(v.limit.has_value());
  CHECK_FALSE(v.over());
  CHECK_FALSE(plain.hours().at(0).exhausted());

  Fleet capped(FleetOptions{800});
  auto t = capped.source("a");
  capped.add(t, count(kH15, {{"api.github.com", Api::rest, 7, "x", 900}}));
  auto w = capped.hours().at(0).budgets.begin()->second;
  CHECK(*w.limit == 800);
  CHECK(w.over());
  CHECK_FALSE(w.lowest.has_value());  // no reading: no lowest, but still over
  CHECK(capped.hours().at(0).exhausted());
}

TEST_CASE("the highest ' of N' in the hour is the limit; answers sum by class") {
  Fleet f;
  auto a = f.source("a"), b = f.source("b");
  f.add(a, BudgetLine{kH15, {}, {budget(1, 10, 14h + 5min, 4000)}});
  f.add(b, BudgetLine{kH15, {}, {budget(1, 20, 14h + 6min, 5000)}});
  AnswersEntry e{"api.github.com", Api::rest, {}};
  e.counts[static_cast<std::size_t>(AnswerClass::ok2xx)] = 5;
  e.counts[static_cast<std::size_t>(AnswerClass::limited)] = 2;
  f.add(a, AnswersLine{kH15, {}, {e}});
  f.add(b, AnswersLine{kH15, {}, {e}});
  auto h = f.hours().at(0);
  CHECK(*h.budgets.begin()->second.limit == 5000);
  CHECK(*h.budgets.begin()->second.lowest == 10);
  auto& ans = h.answers.at(HostApi{"api.github.com", Api::rest});
  CHECK(ans[static_cast<std::size_t>(AnswerClass::ok2xx)] == 10);
  CHECK(ans[static_cast<std::size_t>(AnswerClass::limited)] == 4);
  CHECK(h.requests == 0);  // budget and answers lines carry no N
  CHECK(h.sources.size() == 2);
}

TEST_CASE("a reading's time of day lands on the hour's own day") {
  sys_seconds midnight = sys_days{2026y / 10 / 1};
  CHECK(instant_in_hour(midnight, 23h + 59min + 59s) == midnight - 1s);
  CHECK(instant_in_hour(midnight + 1h, 0h + 30min) == midnight + 30min);
  CHECK(instant_in_hour(midnight + 1h, 23h + 59min) == midnight - 1min);  // stamped just before the hour
}
