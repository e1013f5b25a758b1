// budget.h — the loopback forge's hourly rate-limit budgets, GitHub-style.
//
// One budget per (installation, resource): `core` for REST, `graphql` for
// POST /graphql. Installation 0 is the anonymous caller. Each budget holds
// `limit` requests per hour of the forge's own Clock and refills at the top of
// that clock's hour. A request costs one unless it is a conditional GET the
// forge answers 304 (as GitHub does for authorised callers).
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "forgemeter/clock.h"

namespace forgemeter::testforge {

struct BudgetReading {
  std::uint64_t limit = 0;
  std::uint64_t remaining = 0;
  std::uint64_t used = 0;
  std::int64_t reset_epoch = 0;  // the next top of the hour, in epoch seconds
  bool exhausted = false;        // nothing was left: the request is refused with 403
};

class Budgets {
 public:
  Budgets(const Clock& clock, std::uint64_t installation_limit, std::uint64_t anonymous_limit);

  // Charges one request (cost 0 or 1) and says what the answer's headers show.
  BudgetReading charge(std::uint64_t installation, const std::string& resource, int cost);

  void set_limit(std::uint64_t installation, std::uint64_t limit);
  // The lowest remaining any answer to `installation` showed for `resource`
  // since construction or reset_lowest(); nullopt when it had no answer.
  std::optional<std::uint64_t> lowest_remaining(std::uint64_t installation, const std::string& resource) const;
  void reset_lowest();

 private:
  struct Bucket {
    std::int64_t hour = -1;  // epoch hour the counts belong to
    std::uint64_t used = 0;
  };
  std::uint64_t limit_of(std::uint64_t installation) const;

  const Clock& clock_;
  const std::uint64_t installation_limit_;
  const std::uint64_t anonymous_limit_;
  mutable std::mutex mu_;
  std::map<std::uint64_t, std::uint64_t> limits_;
  std::map<std::pair<std::uint64_t, std::string>, Bucket> buckets_;
  std::map<std::pair<std::uint64_t, std::string>, std::uint64_t> lowest_;
};

}  // namespace forgemeter::testforge
