// forgemeter/lease_metrics.h — a campaign's live figures, readable at any moment.
//
//   forgemeter::LeaseMetrics metrics;
//   forgemeter::CampaignSpec spec{.name = "merge-gate-sweeper",
//                                 .owner = forgemeter::make_owner_id(),
//                                 .ttl = std::chrono::minutes(3),
//                                 .metrics = &metrics};
//   // on any thread, while campaign(store, spec, ...) runs:
//   const forgemeter::LeaseFigures f = metrics.figures();
//   const std::string text = metrics.prometheus();  // the lease families
//
// A campaign given one (CampaignSpec::metrics, borrowed) feeds it; the reader
// never waits on the store. leader is Term::valid() of the campaign's current
// term, read at the moment of the read — the same proof the work's gate uses.
// prometheus() is the Prometheus text format 0.0.4 of the lease families of
// docs/metrics.md, the lease name escaped as a label value. health() is
// nullopt, or why the campaign is stuck: a holder whose term lapsed without
// stepping down, or no store answer for a TTL.
// Threads: every method is safe from any thread. One campaign at a time may
// feed one LeaseMetrics (a second one concurrently is misuse: figures mix).
// Ownership: the campaign's clock must outlive reads made while it runs;
// once campaign() returned, reads use no clock (leader 0, health nullopt).
#pragma once

#include "forgemeter/export.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "forgemeter/clock.h"

namespace forgemeter {

// The store calls a campaign makes, as the `op` label spells them.
enum class LeaseOp : std::uint8_t { acquire, renew, release, inspect };
inline constexpr std::size_t kLeaseOps = 4;
FORGEMETER_API std::string_view to_string(LeaseOp op) noexcept;  // "acquire", ...

// Upper bounds (seconds) of the store round-trip histogram, +Inf implied:
// 1 ms (a loopback store) to 60 s (a call bound by TTL/3 of a 3-minute TTL).
inline constexpr std::array<double, 12> kLeaseStoreBuckets{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                           0.1,   0.25,   0.5,   1.0,  5.0,   60.0};

struct FORGEMETER_API LeaseOpFigures {
  std::array<std::uint64_t, kLeaseStoreBuckets.size()> buckets{};  // answered calls <= each bound (cumulative)
  std::uint64_t count = 0;                                         // answered calls
  double sum_seconds = 0;                                          // their round trips
  std::uint64_t errors = 0;                                        // calls without an answer
};

struct FORGEMETER_API LeaseFigures {
  std::string lease;          // the lease's name ("" until a campaign fed it)
  bool leader = false;        // this replica's term is valid now
  std::uint64_t term = 0;     // the term this replica last held (0: never)
  std::uint64_t changes = 0;  // changes of hands seen (a holder other than the last one seen)
  Duration ttl{};             // the campaign's TTL
  UtcMillis last_renewal{};   // the sending of the last proven acquire or renewal (epoch: none)
  UtcMillis last_held{};      // the last time the lease was known held; the campaign's start until then
  std::array<LeaseOpFigures, kLeaseOps> ops{};  // by LeaseOp
};

class FORGEMETER_API LeaseMetrics {
 public:
  LeaseMetrics();
  LeaseFigures figures() const;
  std::string prometheus() const;
  std::optional<std::string> health() const;

  struct State;  // the campaign's side (src/lease/metrics_state.h)
  State& state() const noexcept { return *state_; }

 private:
  std::shared_ptr<State> state_;
};

}  // namespace forgemeter
