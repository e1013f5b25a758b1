// demo_report.h — what the demo says about its fleet: each hour's fleet line,
// the report beside the forge's own counts, the headline, and the forge's
// counts as JSON for a test to check on its own.
//
// Thread-safety: pure functions. Errors: none.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "report/render.h"

namespace forgemeter::demo {

using LaneCounts = std::map<std::string, std::uint64_t>;  // untagged requests under `other`

// What the forge received in the hours ending (from, until]: read while the
// clock stood still at `until`'s last second, every request of them landed.
struct ForgePeriod {
  std::string label;  // "hour 1"
  report::Instant from{}, until{};
  LaneCounts lanes;
  LaneCounts not_modified;          // of them, answered 304 (free on GitHub: not charged)
  std::uint64_t tokens_minted = 0;  // installation tokens the forge minted for the demo's installation
};

// "hour 2, ending 2026-09-30T11:00Z: 2309 requests from 10 replicas (merge-gate-sweeper 1769, …) — notes"
std::string hour_line(int number, const report::FleetHour& h);

struct Comparison {
  std::string text;  // a table: period, lane, report, forge, agree/DIFFER; then the 304s of every lane
  bool agree = true;
};
Comparison compare(const std::vector<report::FleetHour>& hours, const std::vector<ForgePeriod>& periods);

// {"periods":[{"from":"2026-09-30T09:00Z","until":"2026-09-30T10:00Z","requests":N,"lanes":{"other":N,…},
//   "not_modified":{"merge-gate-sweeper":N,…},"tokens_minted":N},…]}
std::string forge_counts_json(const std::vector<ForgePeriod>& periods);

// "sweep charged (the forge's count; a 304 is free): hour 1 N requests, no 304 (no cache); hour 2 C of M
// requests (…)": what the sweep's lane cost each period, against the `distinct` resources it reads.
std::string charged_text(const std::vector<ForgePeriod>& periods, int distinct);

// "installation tokens minted (the forge's count; …): hour 1 N; hour 2 N; …": each replica
// mints its own, each lives a simulated hour; `replicas` says how many mint.
std::string minted_text(const std::vector<ForgePeriod>& periods, int replicas);

struct DemoPlan;

struct Headline {
  std::string text;
  std::string failure;  // empty: the story held; else why the demo fails (hour 2 or 3 ran out)
};
// When hour 1's budget ran out; the sweep's cost in hours 1 and 2; hour 2's
// search burst; hour 3's paced spend against what it was to keep at the reset.
Headline headline(const std::vector<report::FleetHour>& hours, const DemoPlan& plan);

}  // namespace forgemeter::demo
