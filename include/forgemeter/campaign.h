// forgemeter/campaign.h — serve terms of a lease: campaign, renew, step down fail-closed.
//
//   forgemeter::MemoryStore store;
//   forgemeter::CampaignSpec spec{.name = "merge-gate-sweeper",
//                                 .owner = forgemeter::make_owner_id(),
//                                 .ttl = std::chrono::minutes(3)};
//   forgemeter::run(store, spec, stop_source.get_token(), [](forgemeter::Term& term) {
//     while (!term.stop_token().stop_requested()) { sweep_once(term.number()); ... }
//   });
//
// Timing contract (see README "Leases"):
//   * campaign: an acquire every `retry`, each bounded by TTL/3;
//   * held: `work` runs on its own thread; a renewal every TTL/3, each bounded
//     by TTL/3. The term ends (work's stop token fires) when a renewal is
//     refused, or when no renewal proven within TTL − TTL/6 of the instant it
//     was SENT — computed on the monotonic clock with the stores' millisecond
//     truncation, before the store could hand the lease to anyone else;
//   * a renewal that got no answer does not end the term by itself;
//   * when work returns or throws, the lease is released on its own bounded
//     call (not cancelled by `stop`), so a rollout hands over within one retry;
//   * an attempt whose answer was lost is followed by a release.
//   The lease is for load, not exclusion (forgemeter/lease.h).
//
// Thread-safety: run() blocks its calling thread, which is the only writer of
// the campaign's state; Term may be read from any thread.
// Errors: run() throws std::invalid_argument for an unusable spec before
// anything runs, and rethrows what `work` threw after releasing. Store
// failures are never thrown: they are events.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

#include "forgemeter/clock.h"
#include "forgemeter/lease.h"

namespace forgemeter {

enum class OnLoss : std::uint8_t {
  recampaign,  // after a lost term, campaign again (default)
  stop,        // at most one term per run(): return after it ends
};

struct LeaseEvent {
  enum class Kind : std::uint8_t {
    elected, renewed_late, lost, stepped_down, released, store_unreachable, store_reachable,
  };
  Kind kind;
  std::uint64_t term = 0;
  // Stable text, e.g. `lease "merge-gate-sweeper": host-3f9a2c elected (term 7, TTL 3m)`.
  std::string text;
};

struct CampaignSpec {
  std::string name;
  std::string owner;
  Duration ttl{};
  Duration retry{};               // zero: ttl / 3
  const Clock* clock = nullptr;   // nullptr: system_clock()
  std::function<void(const LeaseEvent&)> on_event;  // called on the campaign thread, after any stop it reports
  OnLoss on_loss = OnLoss::recampaign;
};

// The self-invalidating gate handed to work for one term.
class Term {
 public:
  // Held and before the step-down deadline, read from the campaign's state on
  // every call (no watcher thread): turns false on time even if the campaign
  // thread is stalled.
  bool valid() const noexcept;
  std::uint64_t number() const noexcept;  // the fencing token
  std::stop_token stop_token() const noexcept;
  UtcMillis started() const noexcept;

  struct State;
  explicit Term(std::shared_ptr<const State> state) noexcept : state_(std::move(state)) {}

 private:
  std::shared_ptr<const State> state_;
};

enum class RunEnd : std::uint8_t {
  stopped,        // `stop` was requested
  work_returned,  // work returned by itself during a valid term
  term_ended,     // on_loss == stop and the term ended
};

RunEnd run(LeaseStore& store, const CampaignSpec& spec, std::stop_token stop, std::function<void(Term&)> work);

// Host name + "-" + 12 random hex digits, e.g. `web-7-3f9a2c01b2d4`.
std::string make_owner_id();

// Declares an application's lease names in one place: a name can be claimed
// once per registry, so two nets can never share one by accident.
// Thread-safe. claim() throws std::logic_error for a second claim.
class LeaseNames {
 public:
  std::string_view claim(std::string_view name);
  bool claimed(std::string_view name) const;
  static LeaseNames& process();  // one registry for the process

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_ = make_impl();
  static std::shared_ptr<Impl> make_impl();
};

}  // namespace forgemeter
