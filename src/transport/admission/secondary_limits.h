// secondary_limits.h — GitHub's documented secondary-limit triggers, kept
// under instead of met.
//
// GitHub limits an installation to 100 requests in flight, 900 REST points
// and 2,000 GraphQL points a minute (a read 1, a write 5), and 80
// content-creating requests a minute and 500 an hour, and advises 1 s
// between writes; it "may change them without notice", so each is an option
// with GitHub's value as its default and 0 to turn it off. Before a hop of a
// request charged to an installation goes on the wire the Transport asks
// admit(); a request that would break one waits until the verdict's retry_at
// and asks again, as a paced one does. Once admitted it is in flight until
// release(). Requests charged to no installation are not counted (no budget
// to key them by). Two forges' installations of one number are kept apart
// (by origin). Past 64 installations the idle ones (nothing in flight,
// every window empty) are forgotten by the first admit a minute after the
// last look for them, or once the map has doubled since.
// Why: docs/rate-limits.md#secondary-limits-avoided.
//
// Thread-safety: every method may be called from any thread at once.
// Errors: the constructor throws std::invalid_argument for unusable options.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "forgemeter/clock.h"
#include "forgemeter/rate_limits.h"
#include "forgemeter/url.h"
#include "transport/admission/sliding_sum.h"

namespace forgemeter::transport_detail {

using forgemeter::SecondaryLimitOptions;  // forgemeter/rate_limits.h

// Why the options cannot be used, or nullopt.
std::optional<std::string> check(const SecondaryLimitOptions& o);

// What a request is to the secondary limits.
struct RequestKind {
  Api api = Api::rest;
  bool write = false;            // costs write_points
  bool creates_content = false;  // counts against writes_per_* and write_spacing
};
// `method` is the request's; `body` is read only for GraphQL (is it a mutation?).
RequestKind kind_of(std::string_view method, Api api, std::string_view body);
// Whether a GraphQL request body ({"query": "..."}) holds a mutation.
bool graphql_mutation(std::string_view body) noexcept;

// What keeps two forges' windows apart when both number an installation
// alike: a hash of the origin (scheme, host, port) the requests go to. Two
// origins that collide (1 in 2^64) share their windows, the cautious way.
std::uint64_t origin_id(std::string_view origin) noexcept;

struct SecondaryVerdict {
  bool go = true;
  SteadyTime retry_at{};
  std::string_view limit{};  // which one held it: "max_in_flight", "rest_points_per_minute", …
  bool fresh = false;        // go, and the first request of the installation counted since it was idle
};

class SecondaryLimits {
 public:
  // `clock` is borrowed: it must outlive this.
  SecondaryLimits(const SecondaryLimitOptions& options, const Clock& clock);

  // Whether a request of kind `k` charged to `installation` on the origin
  // `origin` (origin_id) may go now; on go it is counted (and in flight
  // until release()). The windows are kept per origin and installation.
  SecondaryVerdict admit(std::uint64_t installation, const RequestKind& k, std::uint64_t origin = 0);
  void release(std::uint64_t installation, std::uint64_t origin = 0);
  // Each installation's admitted requests not yet released (those with any;
  // an installation on two origins twice).
  std::vector<std::pair<std::uint64_t, unsigned>> in_flight() const;

 private:
  struct Load {
    unsigned in_flight = 0;
    explicit Load(const SecondaryLimitOptions& o)
        : rest_points(o.minute), graphql_points(o.minute), writes_minute(o.minute), writes_hour(o.hour) {}
    SlidingSum rest_points;
    SlidingSum graphql_points;
    SlidingSum writes_minute;
    SlidingSum writes_hour;
    std::optional<SteadyTime> last_write;
  };
  SecondaryVerdict held(Load& load, const RequestKind& k, SteadyTime now) const;
  void forget_idle(SteadyTime now) REQUIRES(mu_);

  SecondaryLimitOptions options_;
  const Clock& clock_;
  mutable core_detail::Mutex mu_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, Load> loads_ GUARDED_BY(mu_);  // by installation, origin
  // The idle are looked for when the map passes twice its size after the
  // last look, or a minute after it: a look is linear in the installations,
  // so a look per admit would be too (bench/secondary_limits_bench.cc).
  std::size_t look_past_ GUARDED_BY(mu_) = 0;
  SteadyTime look_at_ GUARDED_BY(mu_){};
};

}  // namespace forgemeter::transport_detail
