// The fleet model: sums per hour, lane, host/api, installation; replicas;
// partial hours; the budget view, per resource by the forge's rules.
#include <doctest/doctest.h>

#include "report/fleet.h"
#include "report/render_views.h"

using namespace forgemeter;
using namespace forgemeter::report;
using namespace std::chrono;

namespace {

const sys_seconds kH15 = sys_days{2026y / 9 / 30} + 15h;
const sys_seconds kH16 = kH15 + 1h;

CountLine count(sys_seconds ending, std::vector<CountEntry> entries, HourNote note = {}) {
  CountLine l{ending, note, 0, std::move(entries)};
  for (const auto& e : l.entries) l.total += e.count;
  return l;
}

BudgetEntry budget(std::uint64_t inst, std::uint64_t remaining, seconds at, std::optional<std::uint64_t> limit = 5000,
                   std::string resource = "", Api api = Api::rest) {
  return BudgetEntry{"api.github.com", api, inst, std::move(resource), remaining, limit, at, std::nullopt};
}

const BudgetKey kCore101{"api.github.com", Api::rest, 101, ""};
const BudgetKey kSearch101{"api.github.com", Api::rest, 101, "search"};
const BudgetKey kGraphql101{"api.github.com", Api::graphql, 101, ""};

}  // namespace

TEST_CASE("counts sum per hour, lane, host/api and installation across sources") {
  Fleet f;
  auto a = f.source("a.log"), b = f.source("b.log");
  CHECK(f.source("a.log") == a);
  f.add(a, count(kH15, {{"api.github.com", Api::rest, 101, "sweeper", 640},
                        {"api.github.com", Api::graphql, 0, "other", 60}}));
  f.add(b, count(kH15,
                 {{"api.github.com", Api::rest, 101, "sweeper", 610}, {"api.github.com", Api::rest, 0, "other", 40}}));
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
  // Per source: which replica spent what, lane by lane.
  CHECK(h.by_source.at(a).requests == 700);
  CHECK(h.by_source.at(a).lanes.at("sweeper") == 640);
  CHECK(h.by_source.at(a).lanes.at("other") == 60);
  CHECK(h.by_source.at(b).requests == 650);
  CHECK(h.by_source.at(b).lanes.at("other") == 40);
  CHECK(hours[1].by_source.count(a) == 0);
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

TEST_CASE("only search runs out: the hour is limited, not exhausted, and its lowest budget is core's") {
  Fleet f;
  auto a = f.source("a");
  f.add(a, count(kH15, {{"api.github.com", Api::rest, 101, "sweeper", 1200}}));
  f.add(a, BudgetLine{kH15, {}, {budget(101, 4000, 14h + 20min), budget(101, 0, 14h + 2min + 11s, 30, "search")}});

  const FleetHour h = f.hours().at(0);
  CHECK_FALSE(h.exhausted());
  CHECK_FALSE(h.first_exhausted_at().has_value());
  CHECK(h.limited());
  CHECK(*h.first_limited_at() == kH15 - 1h + 2min + 11s);
  const BudgetView& search = h.budgets.at(kSearch101);
  CHECK(search.kind == BudgetKind::other);
  CHECK_FALSE(search.hourly());
  CHECK(*search.limited_at == kH15 - 1h + 2min + 11s);
  CHECK_FALSE(search.exhausted_at.has_value());
  CHECK_FALSE(search.over());
  CHECK_FALSE(search.exhausted());
  CHECK(*search.limit == 30);
  CHECK(search.requests == 0);  // count lines name no resource: their requests are core's
  CHECK_FALSE(kSearch101.credited());
  const BudgetView& core = h.budgets.at(kCore101);
  CHECK(core.requests == 1200);
  CHECK(h.lowest_budget() == &core);  // search at 0 is not the hour's lowest budget
  CHECK(budget_notes(h) == std::vector<std::string>{"installation 101 search limited at 14:02:11Z (0 of 30)"});
  CHECK(lowest_text(h) == "4000 at 14:20:00Z");
}

TEST_CASE("core at 0 exhausts the hour; core requests over the limit do too") {
  Fleet out;
  auto a = out.source("a");
  out.add(a, count(kH15, {{"api.github.com", Api::rest, 101, "sweeper", 900}}));
  out.add(a, BudgetLine{kH15, {}, {budget(101, 0, 14h + 48min + 9s), budget(101, 12, 14h + 5min, 30, "search")}});
  const FleetHour h = out.hours().at(0);
  CHECK(h.exhausted());
  CHECK(*h.first_exhausted_at() == kH15 - 1h + 48min + 9s);
  CHECK_FALSE(h.limited());
  CHECK_FALSE(h.budgets.at(kCore101).over());

  Fleet over;
  auto b = over.source("b");
  over.add(b, count(kH15, {{"api.github.com", Api::rest, 101, "sweeper", 5100}}));
  over.add(b, BudgetLine{kH15, {}, {budget(101, 40, 14h + 59min)}});
  const FleetHour o = over.hours().at(0);
  CHECK(o.budgets.at(kCore101).over());
  CHECK(o.exhausted());
  CHECK_FALSE(o.first_exhausted_at().has_value());  // over, but never read at 0
  CHECK(budget_notes(o) == std::vector<std::string>{"installation 101 over its 5000 by 100"});
}

TEST_CASE("a cache's revalidations (304s, free at the forge) never put core over its limit") {
  // 9000 requests under installation 101, 7000 of them revalidated by a
  // cache (its lanes line): the forge charged 2000 of a 5000 budget.
  const LanesEntry revalidated{"api.github.com", Api::rest, 101, "sweeper", 7000, 0, {}};
  Fleet cached;
  auto a = cached.source("a"), b = cached.source("b");
  cached.add(a, count(kH15, {{"api.github.com", Api::rest, 101, "sweeper", 4500}}));
  cached.add(b, count(kH15, {{"api.github.com", Api::rest, 101, "sweeper", 4500}}));
  cached.add(a, LanesLine{kH15, {}, {revalidated}});
  cached.add(b, BudgetLine{kH15, {}, {budget(101, 3100, 14h + 59min)}});
  const FleetHour h = cached.hours().at(0);
  CHECK(h.budgets.at(kCore101).requests == 9000);
  CHECK(h.budgets.at(kCore101).charged() == 2000);
  CHECK_FALSE(h.budgets.at(kCore101).over());
  CHECK_FALSE(h.exhausted());
  CHECK(budget_notes(h).empty());

  // Past the limit by what was charged: over by that much, not by the requests.
  cached.add(b, count(kH15, {{"api.github.com", Api::rest, 101, "sweeper", 3100}}));
  const FleetHour o = cached.hours().at(0);
  CHECK(o.budgets.at(kCore101).over());
  CHECK(budget_notes(o) == std::vector<std::string>{"installation 101 over its 5000 by 100"});
}

TEST_CASE("GraphQL: its requests never go over (they are not its points); at 0 it exhausts the hour") {
  Fleet f(FleetOptions{1000});  // --budget is core's limit only
  auto a = f.source("a");
  f.add(a, count(kH15, {{"api.github.com", Api::graphql, 101, "sweeper", 9000},
                        {"api.github.com", Api::rest, 101, "sweeper", 800}}));
  f.add(a, BudgetLine{kH15, {}, {budget(101, 100, 14h + 30min, 5000, "", Api::graphql)}});
  f.add(a, count(kH16, {{"api.github.com", Api::graphql, 101, "sweeper", 10}}));
  f.add(a, BudgetLine{kH16, {}, {budget(101, 0, 15h + 7min, 5000, "", Api::graphql), budget(101, 200, 15h + 8min)}});

  const auto hours = f.hours();
  const BudgetView& g = hours[0].budgets.at(kGraphql101);
  CHECK(g.kind == BudgetKind::graphql);
  CHECK(g.hourly());
  CHECK(g.requests == 9000);  // GraphQL's count lines are credited to the graphql budget
  CHECK(*g.limit == 5000);    // not --budget's 1000
  CHECK_FALSE(g.over());
  CHECK_FALSE(hours[0].exhausted());
  CHECK(hours[0].budgets.at(kCore101).requests == 800);
  CHECK(*hours[0].budgets.at(kCore101).limit == 1000);
  CHECK(hours[0].graphql_requests() == 9000);
  CHECK(hours[0].rest_requests() == 800);
  CHECK(hours[0].graphql_lanes.at("sweeper") == 9000);
  CHECK(hours[0].lanes.at("sweeper") == 9800);
  CHECK(lowest_text(hours[0]) == "100 at 14:30:00Z (graphql)");

  CHECK(hours[1].exhausted());
  CHECK(*hours[1].first_exhausted_at() == kH16 - 1h + 7min);
  CHECK(hours[1].lowest_budget() == &hours[1].budgets.at(kGraphql101));
  CHECK(budget_notes(hours[1]) == std::vector<std::string>{"installation 101 graphql out at 15:07:00Z"});
}

TEST_CASE("resource budgets merge across replicas by lowest reading; a written-out default is the default") {
  Fleet f;
  auto a = f.source("a"), b = f.source("b"), c = f.source("c");
  f.add(a, BudgetLine{
               kH15, {}, {budget(101, 0, 14h + 31min, 30, "search"), budget(101, 9, 14h + 1min, 10, "code_search")}});
  f.add(b,
        BudgetLine{kH15, {}, {budget(101, 0, 14h + 2min, 30, "search"), budget(101, 4000, 14h + 3min, 5000, "core")}});
  f.add(c, BudgetLine{kH15,
                      {},
                      {budget(101, 0, 14h + 2min, 30, "search"), budget(101, 3, 14h + 4min, 10, "code_search"),
                       budget(101, 7, 14h + 5min, 50, "integration_manifest")}});

  const FleetHour h = f.hours().at(0);
  REQUIRE(h.budgets.size() == 4);  // core, code_search, integration_manifest, search: `core` written out is core
  CHECK(h.budgets.begin()->first == kCore101);  // the default first, then by name
  CHECK(*h.budgets.at(kCore101).lowest == 4000);
  const BudgetView& s = h.budgets.at(kSearch101);
  CHECK(*s.lowest == 0);
  CHECK(s.lowest_at == kH15 - 1h + 2min);
  CHECK(s.lowest_source == "b");  // b and c read 0 at 14:02: the earlier line's replica
  CHECK(*s.limited_at == kH15 - 1h + 2min);
  const BudgetView& cs = h.budgets.at(BudgetKey{"api.github.com", Api::rest, 101, "code_search"});
  CHECK(*cs.lowest == 3);
  CHECK(cs.lowest_source == "c");
  CHECK_FALSE(cs.limited());
  CHECK(h.budgets.at(BudgetKey{"api.github.com", Api::rest, 101, "integration_manifest"}).kind == BudgetKind::other);
  CHECK_FALSE(h.exhausted());
  CHECK(window_resources({h}) == std::vector<std::string>{"code_search", "integration_manifest", "search"});
  const auto summaries = resource_summaries(h);
  CHECK(summaries.size() == 3);
  CHECK(summaries.at("search").limited_at == kH15 - 1h + 2min);
  CHECK(summaries.at("code_search").lowest == 3);
}

TEST_CASE("absorb(): a log split anywhere and folded gives one fleet's report") {
  struct Line {
    const char* source;
    MeterLine line;
  };
  const std::vector<Line> log = {
      {"a", count(kH15, {{"api.github.com", Api::rest, 101, "sweeper", 700},
                         {"api.github.com", Api::graphql, 101, "other", 60}})},
      {"a", BudgetLine{kH15, {}, {budget(101, 120, 14h + 52min), budget(101, 0, 14h + 2min, 30, "search")}}},
      {"b", count(kH15, {{"api.github.com", Api::graphql, 101, "sweeper", 300}})},
      {"b",
       BudgetLine{kH15,
                  {},
                  {budget(101, 0, 14h + 2min, 30, "search"), budget(101, 4800, 14h + 50min, 5000, "", Api::graphql)}}},
      {"c", BudgetLine{kH16, {}, {budget(101, 5, 15h + 1min, 10, "code_search"), budget(101, 0, 15h + 40min)}}},
      {"b", BudgetLine{kH16, {}, {budget(101, 5, 15h + 1min, 10, "code_search"), budget(101, 0, 15h + 39min)}}},
      {"c", count(kH16, {{"api.github.com", Api::rest, 101, "sweeper", 5200}}, HourNote{std::nullopt, 15h + 50min})},
  };
  auto feed = [&](Fleet& f, std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) f.add(f.source(log[i].source), log[i].line);
  };
  auto text = [](const Fleet& f) {
    ReportData d{f.hours(), f.source_names(), {}};
    return render_json(d) + render_table(d) + render_csv(d) + render_replica_json(d) + render_replica_csv(d);
  };
  Fleet whole;
  feed(whole, 0, log.size());
  const std::string want = text(whole);
  CHECK(want.find(R"("resource":"search","hourly":false,"limited_at":"2026-09-30T14:02:00Z")") != std::string::npos);
  for (std::size_t cut = 0; cut <= log.size(); ++cut) {
    CAPTURE(cut);
    Fleet first, later;
    feed(first, 0, cut);
    feed(later, cut, log.size());
    first.absorb(later);
    CHECK(text(first) == want);
    CHECK(first.lines() == whole.lines());
  }
}

TEST_CASE("a reading's reset is the first instant with its time of day at or after the reading") {
  CHECK(reset_after(kH15 - 10min, 15h + 12min) == kH15 + 12min);
  CHECK(reset_after(kH15 - 10min, 14h + 50min) == kH15 - 10min);
  const sys_seconds late = sys_days{2026y / 9 / 30} + 23h + 50min;
  CHECK(reset_after(late, 10min) == sys_days{2026y / 10 / 1} + 10min);
  Fleet f;
  f.add(f.source("a"),
        BudgetLine{kH15, {}, {BudgetEntry{"api.github.com", Api::rest, 101, "", 7, 5000, 14h + 30min, 15h + 10min}}});
  CHECK(f.hours()[0].budgets.at(kCore101).resets == kH15 + 10min);
}

TEST_CASE("lanes lines: summed across replicas and folded by absorb(); without them every format is as before") {
  const LanesEntry a{"api.github.com", Api::rest, 101, "sweeper", 180, 0, {0, 60'000, 0}};
  const LanesEntry b{"api.github.com", Api::rest, 101, "board", 0, 4, {1500, 0, 0}};
  const LanesEntry c{"api.github.com", Api::rest, 7, "sweeper", 190, 2, {0, 30'000, 2000}};  // another installation
  const std::vector<std::pair<const char*, MeterLine>> base = {
      {"a", count(kH15, {{"api.github.com", Api::rest, 101, "sweeper", 200},
                         {"api.github.com", Api::rest, 101, "board", 30}})},
      {"b", count(kH15, {{"api.github.com", Api::rest, 7, "sweeper", 200}})},
      {"b", BudgetLine{kH15, {}, {budget(101, 4000, 14h + 50min)}}},
  };
  auto lanes = base;
  lanes.push_back({"a", LanesLine{kH15, {}, {b, a}}});
  lanes.push_back({"b", LanesLine{kH15, {}, {c}}});
  auto fleet = [](const auto& log, std::size_t cut, std::size_t end) {
    Fleet f, later;
    for (std::size_t i = 0; i < end; ++i)
      (i < cut ? f : later).add((i < cut ? f : later).source(log[i].first), log[i].second);
    f.absorb(later);
    return f;
  };
  const Fleet with = fleet(lanes, lanes.size(), lanes.size());
  const auto hours = with.hours();
  REQUIRE(hours.size() == 1);
  const auto& economy = hours[0].economy;
  REQUIRE(economy.size() == 2);
  const auto& sweeper = economy.at({"api.github.com", Api::rest, "sweeper"});
  CHECK(sweeper.revalidated == 370);
  CHECK(sweeper.coalesced == 2);
  CHECK(sweeper.waited_ms == std::array<std::uint64_t, kWaitCauses>{0, 90'000, 2000});
  CHECK(economy.at({"api.github.com", Api::rest, "board"}).waited_ms[0] == 1500);
  CHECK(hours[0].requests == 430);  // a lanes line is no request

  const ReportData d{hours, with.source_names(), {}};
  for (std::size_t cut = 0; cut <= lanes.size(); ++cut) {  // a log split anywhere folds to the same report
    const Fleet split = fleet(lanes, cut, lanes.size());
    const ReportData s{split.hours(), split.source_names(), {}};
    CHECK(render_json(s) + render_csv(s) + render_table(s) == render_json(d) + render_csv(d) + render_table(d));
  }

  // Without the lanes lines: each format is the one with them less the lanes' own parts.
  const Fleet without = fleet(base, base.size(), base.size());
  const ReportData w{without.hours(), without.source_names(), {}};
  auto less = [](std::string text, const std::string& part) {
    REQUIRE(!part.empty());
    const auto at = text.find(part);
    REQUIRE(at != std::string::npos);
    return text.erase(at, part.size());
  };
  CHECK(render_json(w) == less(render_json(d), economy_json(d.hours[0])));
  CHECK(render_table(w) == less(render_table(d), economy_text(d)));
  CHECK(render_html(w) == less(render_html(d), economy_html(d)));
  const auto lanes_of = economy_lanes(d.hours);
  CHECK(lanes_of == std::vector<std::string>{"board", "sweeper"});
  CHECK(render_csv(w) ==
        less(less(render_csv(d), economy_csv_head(lanes_of)), economy_csv_cells(d.hours[0], lanes_of)));
  CHECK(economy_csv_cells(d.hours[0], lanes_of) == ",0,4,1500,0,0,370,2,0,90000,2000");
}
