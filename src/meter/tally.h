// One hour's tally, keyed by the hosts as they were given, and its fold into
// the four lines: hosts named in display form (host_text.h), at most
// `max_hosts` of them (the first seen), the rest under `(other hosts)`.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "forgemeter/lane.h"
#include "forgemeter/lines.h"
#include "meter/durations.h"
#include "meter/reading.h"

namespace forgemeter::meter {

// An hour folded into its lines, entries in line order.
struct HourLines {
  CountLine count;
  BudgetLine budget;
  std::vector<Reading> last;  // per budget entry: the latest reading (remaining, limit, reset)
  AnswersLine answers;
  LanesLine lanes;
  // Answers by host, API and lane (the answers line sums the lanes): for the
  // cumulative counters (forgemeter_answers_total's `lane`).
  struct LaneAnswers {
    std::string host;
    Api api;
    std::string lane;
    std::array<std::uint64_t, kAnswerClasses> counts;
  };
  std::vector<LaneAnswers> lane_answers;
  // Durations of answered hops by host and API (lanes summed): for
  // forgemeter_request_duration_seconds.
  struct HostDurations {
    std::string host;
    Api api;
    ClassDurations by_class;
  };
  std::vector<HostDurations> durations;

  // The non-empty lines: count, budget, lanes, then answers (the hour's last
  // line whenever it has answers, as before the lanes line was added).
  std::vector<MeterLine> lines() const;
};

// Not thread-safe: the Meter guards each one. Memory is bounded: past
// `max_raw_hosts` distinct host spellings, answers of new ones are kept as one
// folded host (shown as `(other hosts)`), as are requests added as `folded`.
// (Requests come from the shards' tables, which bound themselves.)
class HourTally {
 public:
  explicit HourTally(std::size_t max_raw_hosts = 4096) : max_raw_hosts_(max_raw_hosts) {}

  // `first_seen` orders hosts for folding: lower was seen earlier.
  void add_requests(std::string_view name, Api api, std::uint64_t installation, Lane lane, std::uint64_t n,
                    std::uint64_t first_seen, bool folded = false);
  void add_answer(std::string_view name, Api api, Lane lane, AnswerClass c, std::uint64_t n, std::uint64_t first_seen);
  // One answer of class `c` and, when `r`, its budget reading for (api,
  // installation, resource): the host is looked up once for both. A host
  // keeps at most kMaxResources named resources an hour; readings of more
  // are not kept (the answer still is). When `t`, the hop's duration too
  // (`c` must then be one of the kTimedClasses).
  void add_answer_reading(std::string_view name, Api api, Lane lane, AnswerClass c, std::uint64_t installation,
                          std::string_view resource, const Reading* r, std::uint64_t first_seen,
                          const Timing* t = nullptr);
  static constexpr std::size_t kMaxResources = 32;
  // What a cache spared a lane (`c` is coalesced or revalidated): counted on
  // the answers line and the lanes line both.
  void add_saved(std::string_view name, Api api, std::uint64_t installation, Lane lane, AnswerClass c,
                 std::uint64_t first_seen);
  // `ms` (> 0) a lane waited for `cause`, on the lanes line.
  void add_wait(std::string_view name, Api api, std::uint64_t installation, Lane lane, WaitCause cause,
                std::uint64_t ms, std::uint64_t first_seen);

  bool empty() const noexcept { return hosts_.empty() && !folded_used_; }
  std::size_t host_count() const noexcept { return hosts_.size(); }  // kept by name; the folded one not included

  HourLines fold(std::chrono::sys_seconds hour_ending, const HourNote& note, std::size_t max_hosts) const;

 private:
  struct CountKey {
    Api api;
    std::uint64_t installation;
    Lane lane;
    friend auto operator<=>(const CountKey&, const CountKey&) = default;
  };
  struct Budget {
    Reading lowest;
    Reading last;
    void offer(const Reading& r);
  };
  // A budget's key; compared with views of its resource (no copy to look one up).
  struct BudgetKey {
    Api api;
    std::uint64_t installation;
    std::string resource;  // lower-cased; "" = the API's default
  };
  struct BudgetKeyView {
    Api api;
    std::uint64_t installation;
    std::string_view resource;
  };
  struct BudgetLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const noexcept {
      if (a.api != b.api) return a.api < b.api;
      if (a.installation != b.installation) return a.installation < b.installation;
      return std::string_view(a.resource) < std::string_view(b.resource);
    }
  };
  using Classes = std::array<std::uint64_t, kAnswerClasses>;
  // A lane's savings and waits: a LanesEntry's numbers.
  struct LaneSums {
    std::uint64_t revalidated = 0, coalesced = 0;
    std::array<std::uint64_t, kWaitCauses> waited_ms{};
    void add(const LaneSums& o);  // saturating
  };
  struct Host {
    std::uint64_t first_seen = std::numeric_limits<std::uint64_t>::max();
    std::map<CountKey, std::uint64_t> counts;
    // The API's default resource (nearly every reading), and the others
    // (at most kMaxResources): the usual record never compares a name.
    std::map<std::pair<Api, std::uint64_t>, Budget> budgets;
    std::map<BudgetKey, Budget, BudgetLess> named;
    std::map<std::pair<Api, Lane>, Classes> answers;  // by lane
    std::map<CountKey, LaneSums> lanes;
    std::vector<ClassDurations> durations;  // empty until a duration is kept, then one per Api
  };
  Host& host(std::string_view name, std::uint64_t first_seen, bool folded, bool capped);
  // fold()'s steps (tally.cc): the hosts grouped by display name, and the
  // hour's numbers summed by those names.
  struct HostGroup;
  struct Sums;
  std::vector<HostGroup> host_groups() const;
  Sums sum_by_host(const std::vector<HostGroup>& groups, std::size_t max_hosts) const;
  static void add_reading(Host& h, const BudgetKeyView& key, const Reading& r);

  std::size_t max_raw_hosts_;
  std::map<std::string, Host, std::less<>> hosts_;
  Host folded_;
  bool folded_used_ = false;
};

}  // namespace forgemeter::meter
