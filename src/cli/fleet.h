// fleet.h — the fleet's hourly sums, built from the meter lines of every replica.
//
// A pure model: feed it (source, MeterLine) pairs in any order, read the hours.
// A *source* is one replica's stream of lines (one input file, or one value of
// `--source-field`). For every hour (by its `hour ending`):
//   * requests: the sum of N of every count line, and the same split per lane,
//     per host/api and per installation;
//   * replicas: the distinct sources that gave any line for the hour;
//     partial: the hour has a line with a note (`counted from` / `until`);
//   * budgets, per (host, api, installation): the fleet's requests under that
//     installation, the lowest remaining any replica saw (earliest on a tie),
//     the limit (FleetOptions::budget, else the highest ` of N` seen in the
//     hour), whether the requests went over it, and the earliest instant a
//     replica saw remaining 0;
//   * answers, per host/api: the sum of each answer class.
//
// Thread-safety: none (one thread builds it). Errors: none; add() accepts any
// line the parser produced.
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
#include <vector>

#include "forgemeter/lines.h"

namespace forgemeter::cli {

using Instant = std::chrono::sys_seconds;

struct HostApi {
  std::string host;
  Api api = Api::rest;
  friend auto operator<=>(const HostApi&, const HostApi&) = default;
};

struct BudgetKey {
  std::string host;
  Api api = Api::rest;
  std::uint64_t installation = 0;
  friend auto operator<=>(const BudgetKey&, const BudgetKey&) = default;
};

// Report order of lanes: `other` first, then byte order.
struct LaneOrder {
  bool operator()(const std::string& a, const std::string& b) const;
};

struct BudgetView {
  std::uint64_t requests = 0;           // the fleet's N under this installation
  std::optional<std::uint64_t> lowest;  // lowest remaining a replica saw
  Instant lowest_at{};
  std::string lowest_source;
  std::optional<std::uint64_t> limit;       // FleetOptions::budget, else the highest ` of N`
  std::optional<Instant> exhausted_at;      // earliest reading of remaining 0
  bool over() const { return limit && requests > *limit; }
  bool exhausted() const { return over() || exhausted_at.has_value(); }
};

using AnswerCounts = std::array<std::uint64_t, kAnswerClasses>;

struct FleetHour {
  Instant hour_ending{};
  std::uint64_t requests = 0;
  std::map<std::string, std::uint64_t, LaneOrder> lanes;
  std::map<HostApi, std::uint64_t> hosts;
  std::map<std::uint64_t, std::uint64_t> installations;  // 0 = none
  std::map<BudgetKey, BudgetView> budgets;
  std::map<HostApi, AnswerCounts> answers;
  std::vector<std::uint32_t> sources;          // sorted, distinct
  std::vector<std::uint32_t> partial_sources;  // sorted, distinct: sources with a noted line
  std::uint64_t lines = 0;                     // meter lines summed into this hour

  Instant hour_start() const { return hour_ending - std::chrono::hours(1); }
  bool partial() const { return !partial_sources.empty(); }
  bool exhausted() const;
  // The earliest instant any installation reached 0 this hour, if one did.
  std::optional<Instant> first_exhausted_at() const;
  // The lowest remaining over all installations (earliest on a tie), if any reading.
  const BudgetView* lowest_budget() const;
};

struct FleetOptions {
  std::optional<std::uint64_t> budget;  // the installations' hourly limit, overriding ` of N`
};

class Fleet {
 public:
  explicit Fleet(FleetOptions options = {}) : options_(options) {}

  // The id of a source by name (created on first use).
  std::uint32_t source(std::string_view name);
  const std::vector<std::string>& source_names() const { return names_; }

  void add(std::uint32_t source, const MeterLine& line);

  // Every hour that has a line, ascending, with the budget options applied.
  std::vector<FleetHour> hours() const;
  std::uint64_t lines() const { return lines_; }

 private:
  FleetHour& hour(Instant ending, std::uint32_t source, const HourNote& note);
  void add_count(FleetHour& h, const CountLine& line);
  void add_budget(FleetHour& h, std::uint32_t source, const BudgetLine& line);
  static void add_answers(FleetHour& h, const AnswersLine& line);

  FleetOptions options_;
  std::map<Instant, FleetHour> hours_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::uint64_t lines_ = 0;
};

// A reading's time of day placed in the hour it was reported for (the nearest
// such instant to that hour, so a reading at 23:59:59Z in the hour ending
// 00:00Z lands on the right day).
Instant instant_in_hour(Instant hour_ending, TimeOfDay at);

}  // namespace forgemeter::cli
