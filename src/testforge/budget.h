// budget.h — the loopback forge's primary rate-limit buckets, GitHub- and GitLab-style.
//
// One bucket per (installation, resource). Installation 0 is the anonymous
// caller. A resource names a bucket and fixes its window on the forge's own
// Clock (fixed windows, aligned on that clock's minutes and hours, as the
// tests can then step over them exactly):
//
//   resource      window   default limit (BudgetLimits)   charged by (see charging.h)
//   core          hour     installation (5000)            GitHub REST
//   graphql       hour     graphql (5000 points)          GitHub POST /graphql, X-Forge-Cost points
//   search        minute   search (30)                    GitHub /search/... (not /search/code)
//   code_search   minute   code_search (10)               GitHub /search/code
//   gitlab        minute   gitlab (600)                   every request to the GitLab-style host
//   (any other)   hour     installation
//
// The anonymous caller gets BudgetLimits::anonymous in every bucket (large:
// tests send a lot without naming an installation); set_limit() overrides one
// bucket of one caller, anonymous included.
//
// A request is admitted while its bucket has something left (used < limit)
// and then spends its cost, at most what is left: an expensive GraphQL query
// empties the bucket rather than being refused for its cost alone, so a
// refusal always shows remaining 0 (the meter's sign of a spent budget). A
// conditional GET the forge answers 304 costs 0 (as GitHub does for
// authorised callers) but is refused like any other once the bucket is spent.
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "forgemeter/clock.h"

namespace forgemeter::testforge {

struct BudgetLimits {
  std::uint64_t installation = 5000;       // core (and resources the table does not name), per hour
  std::uint64_t graphql = 5000;            // points per hour
  std::uint64_t search = 30;               // per minute
  std::uint64_t code_search = 10;          // per minute
  std::uint64_t gitlab = 600;              // per minute
  std::uint64_t anonymous = 10'000'000;    // installation 0, every resource
  std::chrono::seconds core_window{3600};  // the hourly buckets' window (shorter: tests that span several)
};

struct BudgetReading {
  std::uint64_t limit = 0;
  std::uint64_t remaining = 0;
  std::uint64_t used = 0;
  std::int64_t reset_epoch = 0;  // the end of the bucket's window, in epoch seconds
  bool exhausted = false;        // nothing was left: the request is refused
};

class Budgets {
 public:
  Budgets(const Clock& clock, BudgetLimits limits);

  // The length of a resource's window (the table above; an hour is
  // BudgetLimits::core_window).
  std::chrono::seconds window_of(std::string_view resource) const;

  // Charges one request of `cost` received at `at` (default: the clock's now)
  // and says what the answer's headers show.
  BudgetReading charge(std::uint64_t installation, const std::string& resource, std::uint64_t cost, UtcMillis at);
  BudgetReading charge(std::uint64_t installation, const std::string& resource, std::uint64_t cost);
  // What an answer at `at` shows without spending anything (a request answered
  // for another reason, e.g. a secondary limit). Counts for lowest_remaining().
  BudgetReading peek(std::uint64_t installation, const std::string& resource, UtcMillis at);

  // The limit of `installation`'s `core` bucket (as before resources had limits of their own).
  void set_limit(std::uint64_t installation, std::uint64_t limit);
  // The limit of one bucket; takes effect from the next request.
  void set_limit(std::uint64_t installation, const std::string& resource, std::uint64_t limit);
  // The lowest remaining any answer to `installation` showed for `resource`
  // since construction or reset_lowest() (over all its windows); nullopt when
  // it had no answer.
  std::optional<std::uint64_t> lowest_remaining(std::uint64_t installation, const std::string& resource) const;
  void reset_lowest();

 private:
  struct Bucket {
    std::int64_t window = -1;  // index of the window the count belongs to (epoch seconds / window length)
    std::uint64_t used = 0;
  };
  using Key = std::pair<std::uint64_t, std::string>;
  std::uint64_t limit_of(const Key& key) const;
  BudgetReading settle(const Key& key, std::uint64_t cost, UtcMillis at, bool spend);

  const Clock& clock_;
  const BudgetLimits limits_;
  mutable std::mutex mu_;
  std::map<Key, std::uint64_t> overrides_;
  std::map<Key, Bucket> buckets_;
  std::map<Key, std::uint64_t> lowest_;
};

}  // namespace forgemeter::testforge
