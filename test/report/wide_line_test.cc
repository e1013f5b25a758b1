// One meter line may name 200 000 hosts, lanes, installations or budgets (a
// crafted line; a real one carries one entry per installation): the report
// reads it whole and every view holds each entry once, in report order. No
// clock here: bench/report_wide_bench.sh shows the time per entry stays
// flat from 10 000 to 1 000 000 entries on one line.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "report/render_views.h"
#include "report/scanner.h"

using namespace forgemeter;
using namespace forgemeter::report;

namespace {

constexpr std::size_t kWide = 200'000;
const std::string kHead = " in the hour ending 2026-09-30T15:00Z \xe2\x80\x94 ";

// Entry i of a line of kWide, joined by ", ": the names (h<i>.x, l<i>, r<i>)
// come in numeric order, which is not byte order (h10 before h2), and the
// installations count down, so no map is built in its own order.
template <class Entry>
std::string entries(Entry entry) {
  std::string out;
  for (std::size_t i = 0; i < kWide; ++i) out += (i == 0 ? "" : ", ") + entry(std::to_string(i), kWide - i);
  return out;
}

std::size_t count_of(const std::string& text, char c) { return static_cast<std::size_t>(std::ranges::count(text, c)); }

}  // namespace

TEST_CASE("a line of 200 000 distinct hosts, lanes, installations and budgets is read whole, each entry once") {
  Fleet fleet;
  Scanner scan(fleet, ScanOptions{});
  auto take = [&](const std::string& line) { scan.scan_line_from(line, "wide.log"); };
  take("forge HTTP: " + std::to_string(kWide) + " requests" + kHead + entries([](const std::string& i, std::size_t n) {
         return "h" + i + ".x rest installation " + std::to_string(n) + " l" + i + "=1";
       }));
  take("forge HTTP lanes:" + kHead +
       entries([](const std::string& i, std::size_t) { return "h" + i + ".x rest l" + i + " coalesced=1"; }));
  take("forge HTTP answers:" + kHead +
       entries([](const std::string& i, std::size_t) { return "h" + i + ".x rest 2xx=1"; }));
  take("forge rate limit: lowest remaining" + kHead + entries([](const std::string& i, std::size_t n) {
         return "h.x rest installation " + std::to_string(n) + " r" + i + ": 5 of 10 at 14:00:00Z";
       }));
  REQUIRE(scan.stats().skipped == 0);
  REQUIRE(scan.stats().lines == 4);

  const auto hours = fleet.hours();
  REQUIRE(hours.size() == 1);
  const FleetHour& h = hours[0];
  CHECK(h.requests == kWide);
  CHECK(h.hosts.size() == kWide);
  CHECK(h.lanes.size() == kWide);
  CHECK(h.installations.size() == kWide);
  CHECK(h.answers.size() == kWide);
  CHECK(h.economy.size() == kWide);
  CHECK(h.budgets.size() == 2 * kWide);  // each installation's core, and each named resource
  REQUIRE(h.by_source.size() == 1);
  CHECK(h.by_source.begin()->second.lanes.size() == kWide);
  CHECK(h.by_source.begin()->second.requests == kWide);
  auto sorted = [](const auto& map) {
    return std::is_sorted(map.begin(), map.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  };
  CHECK(sorted(h.hosts));
  CHECK(sorted(h.installations));
  CHECK(sorted(h.answers));
  CHECK(sorted(h.economy));
  CHECK(sorted(h.budgets));
  CHECK(std::is_sorted(h.lanes.begin(), h.lanes.end(),
                       [](const auto& a, const auto& b) { return LaneOrder()(a.first, b.first); }));
  CHECK(h.hosts.at(HostApi{"h199999.x", Api::rest}) == 1);
  CHECK(h.lanes.at("l7") == 1);
  CHECK(h.installations.begin()->first == 1);
  CHECK(h.answers.at(HostApi{"h7.x", Api::rest})[0] == 1);
  CHECK(h.economy.at(HostApiLane{"h7.x", Api::rest, "l7"}).coalesced == 1);
  CHECK(h.budgets.at(BudgetKey{"h.x", Api::rest, 3, "r199997"}).lowest == 5);

  // Every format: one column (or row) per entry, each once.
  const ReportData d{hours, fleet.source_names(), scan.stats()};
  const std::string csv = render_csv(d);
  const auto header_end = csv.find('\n');
  REQUIRE(header_end != std::string::npos);
  const std::string header = csv.substr(0, header_end), row = csv.substr(header_end + 1);
  CHECK(count_of(header, ',') == 8 + kWide + 2 * kWide + 5 * kWide);  // lanes, resources, lanes' economy
  CHECK(count_of(row, ',') == count_of(header, ','));
  CHECK(count_of(row, '\n') == 1);
  const std::string json = render_json(d);
  CHECK(json.find(R"("l199999":1)") != std::string::npos);
  CHECK(count_of(render_table(d), '\n') > 4 * kWide);  // by host, economy and installation: a row each
  CHECK(render_replica_csv(d).find(",1\n") != std::string::npos);
  CHECK(render_html(d).find(R"(data-resource="r7")") != std::string::npos);
}
