// fleet.h — the fleet's hourly sums, built from the meter lines of every replica.
//
// A pure model: feed it (source, meter line) pairs in any order, read the hours.
// A *source* is one replica's stream of lines (one input file, or one value of
// `--source-field`). For every hour (by its `hour ending`):
//   * requests: the sum of N of every count line, and the same split per lane
//     (and its GraphQL part), per host/api, per installation, and per source
//     and lane (which replica spent what);
//   * replicas: the distinct sources that gave any line for the hour;
//     partial: the hour has a line with a note (`counted from` / `until`);
//   * budgets, per (host, api, installation, resource) — the forge's buckets,
//     read by the rules of budget_view.h: the lowest remaining any replica saw
//     (earliest on a tie), the limit (the highest ` of N` seen in the hour;
//     FleetOptions::budget overrides it for `core`), the earliest instant a
//     replica saw remaining 0; the fleet's requests under an installation are
//     credited to its API's default resource (count lines name no resource);
//   * answers, per host/api: the sum of each answer class;
//   * economy, per host/api/lane (lanes lines): what a cache spared the lane
//     (revalidated, coalesced) and how long it waited, per cause.
//
// Inside, names are interned (small ids) and an hour's sums are flat vectors
// keyed by those ids; hours() builds the ordered maps of FleetHour once.
// Fleets built from consecutive pieces of the input (chunks of a file read by
// different threads) fold into one with absorb(), giving exactly what one
// fleet fed every line in order would hold.
//
// Thread-safety: none (one thread builds a Fleet). Errors: none; add() accepts
// any line the parser produced.
#pragma once

#include <array>
#include <chrono>
#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "forgemeter/line_view.h"
#include "forgemeter/lines.h"
#include "report/budget_view.h"
#include "report/flat_map.h"
#include "report/fleet_keys.h"
#include "report/interner.h"
#include "report/small_map.h"

namespace forgemeter::report {

struct HostApi {
  std::string host;
  Api api = Api::rest;
  friend auto operator<=>(const HostApi&, const HostApi&) = default;
};

// Report order of lanes: `other` first, then byte order.
struct LaneOrder {
  bool operator()(const std::string& a, const std::string& b) const;
};

using AnswerCounts = std::array<std::uint64_t, kAnswerClasses>;

// What lanes lines say one lane was spared and how long it waited (ms, by WaitCause).
struct LaneEconomy {
  std::uint64_t revalidated = 0, coalesced = 0;
  std::array<std::uint64_t, kWaitCauses> waited_ms{};
};

// A lanes entry's key, its installation summed over: host, api, lane (report order).
struct HostApiLane {
  std::string host;
  Api api = Api::rest;
  std::string lane;
  friend bool operator<(const HostApiLane& a, const HostApiLane& b) {
    if (a.host != b.host) return a.host < b.host;
    if (a.api != b.api) return a.api < b.api;
    return LaneOrder()(a.lane, b.lane);
  }
};

// Requests per lane, in report order.
using LaneSums = FlatMap<std::string, std::uint64_t, LaneOrder>;

// One source's requests in an hour.
struct SourceHour {
  std::uint64_t requests = 0;
  LaneSums lanes;  // every API
};

// The hour's maps are sorted vectors (flat_map.h): a long log has thousands of hours.
struct FleetHour {
  Instant hour_ending{};
  std::uint64_t requests = 0;
  LaneSums lanes;          // every API
  LaneSums graphql_lanes;  // the GraphQL requests among them (lanes with any)
  FlatMap<HostApi, std::uint64_t> hosts;
  FlatMap<std::uint64_t, std::uint64_t> installations;  // 0 = none
  FlatMap<BudgetKey, BudgetView> budgets;
  FlatMap<HostApi, AnswerCounts> answers;
  FlatMap<HostApiLane, LaneEconomy> economy;     // from lanes lines (none: the hour had none)
  std::vector<std::uint32_t> sources;            // sorted, distinct
  std::vector<std::uint32_t> partial_sources;    // sorted, distinct: sources with a noted line
  FlatMap<std::uint32_t, SourceHour> by_source;  // sources with requests (a budget-only source has none)
  std::uint64_t lines = 0;                       // meter lines summed into this hour

  Instant hour_start() const { return hour_ending - std::chrono::hours(1); }
  bool partial() const { return !partial_sources.empty(); }
  std::uint64_t graphql_requests() const;
  std::uint64_t rest_requests() const { return requests - graphql_requests(); }
  // An hourly budget (core, graphql) reached 0, or core went over its limit.
  bool exhausted() const;
  // The earliest instant an hourly budget reached 0 this hour, if one did.
  std::optional<Instant> first_exhausted_at() const;
  // Another resource (search, …) reached 0: limited for its window, not exhausted.
  bool limited() const { return first_limited_at().has_value(); }
  std::optional<Instant> first_limited_at() const;
  // The lowest remaining over the hourly budgets (earliest on a tie), if any
  // reading: a search bucket at 0 is not the hour's lowest budget.
  const BudgetView* lowest_budget() const;
};

struct FleetOptions {
  std::optional<std::uint64_t> budget;  // the installations' hourly core limit, overriding ` of N`
};

class Fleet {
 public:
  explicit Fleet(FleetOptions options = {}) : options_(options) {}

  // The id of a source by name (created on first use: ids in order of first use).
  std::uint32_t source(std::string_view name) { return sources_.id(name); }
  const std::vector<std::string>& source_names() const { return sources_.names(); }

  // A meter line, owning (MeterLine) or viewed (LineView).
  template <class Text>
  void add(std::uint32_t source, const BasicMeterLine<Text>& line) {
    std::visit([&](const auto& l) { add(source, l); }, line);
  }
  // One of the kinds a meter line holds (CountLine, CountLineView, …).
  template <class Line>
  void add(std::uint32_t source, const Line& line);

  // Folds in `later`, a fleet fed the lines that come after this one's (its
  // source ids are its own; names match by name): afterwards this fleet holds
  // what it would had it been fed both runs of lines in order.
  void absorb(const Fleet& later);

  // Every hour that has a line, ascending, with the budget options applied.
  std::vector<FleetHour> hours() const;
  std::uint64_t lines() const { return lines_; }
  // The earliest hour whose sums passed 2^64-1 (they are then wrong), if any.
  std::optional<Instant> overflowed() const { return overflowed_; }

 private:
  // One budget's sums. A line's reading is merged as a one-reading Budget, so
  // add() and absorb() apply the same rules (and absorb() stays exact).
  struct Budget {
    std::uint64_t requests = 0;
    std::uint64_t revalidated = 0;  // of them, answered 304 to a cache (lanes lines): free at the forge
    std::optional<std::uint64_t> lowest;
    Instant lowest_at{};
    std::uint32_t lowest_source = 0;
    std::optional<std::uint64_t> limit;
    std::optional<Instant> lowest_resets;  // the lowest reading's reset, when it named one
    std::optional<Instant> zero_at;        // the earliest reading of remaining 0
    // Folds in sums from lines that come later (`source`: their lowest
    // reading's source in this fleet's ids): an equal lowest keeps this one's.
    void merge(const Budget& later, std::uint32_t source);
  };
  // One hour's sums, keyed by ids: requests by source_lane(), hosts and
  // answers by host/api id (pack_name_api()), installations by id; the API's
  // default resource's budgets by budget_key() of a host/api id and an
  // installation, any other resource's by resource_key() (count lines only
  // ever touch the first: their hot path has no resource to look up).
  struct Hour {
    Instant ending{};
    std::uint64_t requests = 0, lines = 0;
    SmallMap<std::uint64_t> source_lanes, hosts, installations;
    SmallMap<Budget> budgets, resources;
    SmallMap<AnswerCounts> answers;
    SmallMap<LaneEconomy> economy;  // by economy_key()
    std::vector<std::uint32_t> sources, partial_sources;
  };

  Hour& hour(Instant ending);
  FleetHour hour_of(const Hour& from) const;
  void lanes_of(const Hour& from, FleetHour& h) const;
  static constexpr std::size_t kInsertedLanes = 16;  // up to this many (source, lane) sums: inserted one by one
  BudgetView view_of(const Budget& from, BudgetKind kind) const;
  BudgetKey key_of(std::uint64_t budget_key, std::string resource) const;
  void add_sum(const Hour& h, std::uint64_t& to, std::uint64_t n);
  template <class Text>
  void add_entries(Hour& h, std::uint32_t source, const BasicCountLine<Text>& line);
  template <class Text>
  void add_entries(Hour& h, std::uint32_t source, const BasicBudgetLine<Text>& line);
  template <class Text>
  void add_entries(Hour& h, std::uint32_t source, const BasicAnswersLine<Text>& line);
  template <class Text>
  void add_entries(Hour& h, std::uint32_t source, const BasicLanesLine<Text>& line);
  void add_economy(const Hour& h, LaneEconomy& to, const LaneEconomy& n);
  // A host/api id and a lane id, as one id.
  std::uint64_t economy_key(std::uint64_t host_api, std::uint32_t lane) { return economy_pairs_.id(host_api, lane); }
  // A source, a lane id and an API as one key (fleet_keys.h): the lanes of
  // one source are what most hours hold (one file per replica), so splitting
  // by source costs the scan nothing there.
  static std::uint64_t source_lane(std::uint32_t source, std::uint64_t lane, Api api) {
    return pack_source_lane(source, pack_name_api(lane, api));
  }
  std::uint64_t host_api(std::string_view host, Api api) { return pack_name_api(hosts_.id(host), api); }
  // Packed in one word when both fit (always, in practice), else an id of the pair with the top bit set.
  std::uint64_t budget_key(std::uint64_t host_api, std::uint64_t installation) {
    if (budget_fits(host_api, installation)) return pack_budget(host_api, installation);
    return installs_.id(host_api, installation) | kPairBit;
  }
  HostInstallation budget_pair(std::uint64_t key) const {
    if (key & kPairBit) {
      const auto [host_api, installation] = installs_.pair(key & ~kPairBit);
      return {host_api, installation};
    }
    return unpack_budget(key);
  }
  static constexpr std::uint64_t kPairBit = std::uint64_t{1} << 63;
  static_assert(kBudgetHostApiBits + kInstallationBits < 64, "a packed budget key leaves kPairBit clear");
  HostApi host_api_of(std::uint64_t id) const {
    const NameApi k = unpack_name_api(id);
    return HostApi{hosts_.name(static_cast<std::uint32_t>(k.name)), k.api};
  }
  // A budget_key() and a resource name id, as one id.
  std::uint64_t resource_key(std::uint64_t budget_key, std::uint32_t resource) {
    return resource_pairs_.id(budget_key, resource);
  }

  // Pairs of numbers as dense ids: (host/api id, installation) of the budgets
  // that do not pack, (budget key, resource id) of the resources.
  class PairIds {
   public:
    std::uint64_t id(std::uint64_t a, std::uint64_t b);
    std::pair<std::uint64_t, std::uint64_t> pair(std::uint64_t id) const { return pairs_[id]; }

   private:
    struct Hash {
      std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& p) const noexcept {
        return std::hash<std::uint64_t>{}(p.first * 0x9E3779B97F4A7C15ULL ^ p.second);
      }
    };
    std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs_;
    std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t, Hash> ids_;
  };

  FleetOptions options_;
  std::vector<Hour> hours_;                                   // in order of first use
  std::unordered_map<std::int64_t, std::size_t> hour_slots_;  // hour ending (s) -> index in hours_
  std::size_t last_slot_ = SIZE_MAX;                          // the hour the previous line went to
  Interner sources_, lanes_, hosts_, resources_;
  PairIds installs_, resource_pairs_, economy_pairs_;
  std::uint64_t lines_ = 0;
  std::optional<Instant> overflowed_;
};

// A reading's time of day placed in the hour it was reported for (the nearest
// such instant to that hour, so a reading at 23:59:59Z in the hour ending
// 00:00Z lands on the right day).
Instant instant_in_hour(Instant hour_ending, TimeOfDay at);

// A reading's reset as an instant: the first at or after the reading with
// that time of day (a window ends within an hour of any reading in it).
Instant reset_after(Instant at, TimeOfDay resets);

}  // namespace forgemeter::report
