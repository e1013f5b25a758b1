// forgemeter/campaign.h — serve terms of a lease: campaign, renew, step down fail-closed.
//
//   forgemeter::MemoryStore store;
//   forgemeter::CampaignSpec spec{.name = "merge-gate-sweeper",
//                                 .owner = forgemeter::make_owner_id(),
//                                 .ttl = std::chrono::minutes(3)};
//   forgemeter::campaign(store, spec, stop_source.get_token(), [](forgemeter::Term& term) {
//     while (!term.stop_token().stop_requested()) sweep_once(term.number());
//   });
//
// campaign() campaigns for a lease and serves each term it wins with `work`,
// handing it a Term that reads false from the step-down deadline on — at least
// T/6 before the expiry the store recorded, even while the campaign is stalled
// in a store call. When terms end and how a stop takes effect: at campaign()
// below; the arithmetic: docs/lease-timing.md, docs/lease-stop.md. For load,
// not exclusion (lease.h): fence writes with Term::number().
// Threads: campaign() blocks the caller; Term is readable from any thread;
// events go out in order on its event thread, drained before it returns.
// Ownership: campaign() borrows the store and spec.clock. Errors:
// invalid_argument for an unusable spec or empty `work`; what work threw,
// after the release; store failures are events, never thrown.
#pragma once

#include "forgemeter/export.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>

#include "forgemeter/clock.h"
#include "forgemeter/lease.h"
#include "forgemeter/lease_metrics.h"

namespace forgemeter {

enum class OnLoss : std::uint8_t {
  recampaign,  // after a term ended by a refusal, a step-down or a resign request, campaign again
               // (default; after a resign request, one TTL later)
  stop,        // at most one term per campaign(): return CampaignEnd::term_ended after it
};

struct FORGEMETER_API LeaseEvent {
  enum class Kind : std::uint8_t {
    elected,            // a term began
    renewed_late,       // a renewal succeeded after unanswered ones: the term survived a blip
    lost,               // a renewal was refused: the term ended at once
    stepped_down,       // the step-down deadline passed with no proven renewal: the term ended
    released,           // the lease was given back (also: what an unanswered attempt had taken)
    store_unreachable,  // a call got no answer; once per outage episode
    store_reachable,    // the first answer after an outage
    owner_in_use,       // another campaign holds the lease under this owner: refused; once per holder
    term_exhausted,     // the lease's term cannot increase: refused, never reused; once per campaign
    resigned,           // an operator asked the holder to step down (LeaseStore::resign): the term ended
    clock_differs,      // the store server's clock (PostgreSQL) differs from spec.clock's by > (T − W)/4; once
  };
  Kind kind;
  std::uint64_t term = 0;  // the term concerned; 0 when none
  // One line, stable wording, name and owner escaped (no control bytes), e.g.
  //   lease "merge-gate-sweeper": host-3f9a2c elected (term 7, TTL 3m)
  //   lease "merge-gate-sweeper": host-3f9a2c renewed late (term 7, after 2 unanswered renewals)
  //   lease "merge-gate-sweeper": host-3f9a2c lost the lease to host-77b0e1 (term 7 ended: renewal refused)
  //   lease "merge-gate-sweeper": host-3f9a2c stepped down (term 7 ended: no renewal proven within 2m30s of its sending)
  //   lease "merge-gate-sweeper": host-3f9a2c released the lease (term 7)
  //   lease "merge-gate-sweeper": host-3f9a2c released the lease an unanswered attempt had taken (term 8)
  //   lease "merge-gate-sweeper": host-3f9a2c cannot reach the lease store (connection refused)
  //   lease "merge-gate-sweeper": host-3f9a2c reaches the lease store again (no answer for 42s)
  //   lease "merge-gate-sweeper": web-1 is refused: owner "web-1" is already in use by another campaign (web-1#3f9a2c01b2d4 holds term 7); give each candidate an owner of its own
  //   lease "merge-gate-sweeper": web-1 is refused: term 18446744073709551615 cannot increase (...)
  //   lease "merge-gate-sweeper": host-3f9a2c resigned (term 7 ended: asked to step down; campaigns again in 3m)
  //   lease "merge-gate-sweeper": host-3f9a2c has a clock about 5s ahead of the lease store server's (more than ...)
  std::string text;
};

FORGEMETER_API std::string_view to_string(LeaseEvent::Kind k) noexcept;  // "elected", "renewed_late", ...

// The TTLs a campaign takes: renewals every TTL/3 need at least 1 ms.
inline constexpr std::chrono::milliseconds kMinCampaignTtl{3};
inline constexpr std::chrono::hours kMaxCampaignTtl{24 * 366};

// A holder is a campaign, not a name: the owner a campaign writes to the store
// is spec.owner + "#" + 12 random hex digits drawn for that campaign() call
// (e.g. `web-1#3f9a2c01b2d4`), so a second process — or a second campaign —
// with the same spec.owner is refused as any other owner is (docs/leases.md).
// spec.owner may therefore be at most kCampaignOwnerMaxBytes.
inline constexpr std::size_t kCampaignTagBytes = 13;  // "#" + 12 hex digits
inline constexpr std::size_t kCampaignOwnerMaxBytes = kLeaseTextMaxBytes - kCampaignTagBytes;

// The owner name in a holder a campaign wrote (`web-1` for
// `web-1#3f9a2c01b2d4`); any other holder as it is.
FORGEMETER_API std::string_view holder_name(std::string_view holder) noexcept;

struct FORGEMETER_API CampaignSpec {
  std::string name{};               // the lease; see lease.h for what a name may be
  std::string owner{};              // this candidate's name (make_owner_id()); the store gets it tagged, above
  Duration ttl{};                   // kMinCampaignTtl to kMaxCampaignTtl (docs/lease-timing.md)
  std::optional<Duration> retry{};  // nullopt: ttl / 3; a value must be > 0 and < ttl
  // The serving window W: how long after the SENDING of its last proven call
  // a term may serve (D at campaign() below). nullopt: T − ⌈T/6⌉; a value
  // from T/3 + 1 ms to that, T being the TTL truncated to whole ms (why those
  // bounds: docs/lease-timing.md#the-serving-window).
  std::optional<Duration> serve_for{};
  const Clock* clock = nullptr;                       // nullptr: system_clock()
  std::function<void(const LeaseEvent&)> on_event{};  // on campaign()'s event thread, after any stop it reports
  OnLoss on_loss = OnLoss::recampaign;
  // A second stop, for an immediate exit (a second SIGTERM): it cuts short the
  // release that follows a stop, which otherwise has T/3 to land.
  std::stop_token exit_now{};
  // Borrowed; nullptr: none. Fed with the campaign's live figures (lease_metrics.h).
  LeaseMetrics* metrics = nullptr;
};

// Why `spec` is unusable, or nullopt when campaign() would accept it.
FORGEMETER_API std::optional<std::string> check_campaign_spec(const CampaignSpec& spec);

// The serving window campaign() uses for `spec` (serve_for, or its default), and
// the slack D subtracts for the stamp's millisecond: a term ends at most
// serving_window(spec) − kStampSlack after its last proven call was sent, and
// at least lease_ttl(spec.ttl) − serving_window(spec) before the expiry the
// store recorded. For a spec check_campaign_spec() accepts.
inline constexpr Duration kStampSlack = std::chrono::milliseconds(1) - std::chrono::nanoseconds(1);
FORGEMETER_API Duration serving_window(const CampaignSpec& spec);

// The self-invalidating gate handed to work for one term. Cheap to copy; a
// copy reads the same term. Once a term has ended, its Term reads false
// forever (a later term of the same campaign has a Term of its own).
class FORGEMETER_API Term {
 public:
  // Held and steady_now() before the step-down deadline D, read from the
  // campaign's state (two atomics and a clock reading) on every call — no
  // watcher thread, so it turns false on time even if the campaign thread is
  // stalled in a store call.
  bool valid() const noexcept;
  // The fencing token: the store's term (lease.h). It fences other owners: a
  // later term of this same campaign carries the same number when the lease
  // never changed hands in between (re-won after a step-down whose release
  // got no answer, before anyone else took it).
  std::uint64_t number() const noexcept;
  std::stop_token stop_token() const noexcept;
  UtcMillis started() const noexcept;    // the wall stamp of the acquire that began the term
  SteadyTime deadline() const noexcept;  // the current step-down deadline (moves on with each proven renewal)

  struct State;  // the campaign's side (src/lease/term_state.h)
  explicit Term(std::shared_ptr<const State> state) noexcept : state_(std::move(state)) {}

 private:
  std::shared_ptr<const State> state_;
};

// Why campaign() returned.
enum class CampaignEnd : std::uint8_t {
  stopped,        // `stop` was requested
  work_returned,  // work returned by itself during a valid term (the lease was released)
  term_ended,     // on_loss == OnLoss::stop and the term ended (refused, stepped down or resigned)
};

FORGEMETER_API std::string_view to_string(CampaignEnd e) noexcept;  // "stopped", "work_returned", "term_ended"

// Campaigns for spec.name on `store` until `stop`, serving each term won with
// `work` (afresh for each term; a healthy holder keeps its term). The store is
// a reference: "no store" is not expressible. Borrows `store` and spec.clock:
// both must outlive the call.
//
// Timing, TTL T (whole ms, as stores keep it), serving window W (serve_for;
// default T − ⌈T/6⌉); the arithmetic is in docs/lease-timing.md:
//   * an acquire every `retry` (default T/3) from the last attempt's start,
//     sooner when the store wakes the candidate (a release or a change of
//     hands, LeaseChanges in lease.h) or the refusing holder's expiry comes;
//     a renewal every T/3 from the last sending; each call bounded by T/3.
//   * a term ends (held cleared, work's stop token fired, then the event) when
//     a renewal is refused, or at D = S + W − kStampSlack, S = the monotonic
//     instant the last granted call was SENT: at least T − W ≥ T/6 before the
//     expiry the store recorded, whatever the stamp's sub-ms offset.
//   * a resign request (LeaseStore::resign) is read by the next renewal, sent
//     at once when the store wakes the holder (LeaseChanges): the term ends as
//     for a stop, the lease is released, and the campaign stays out one TTL.
//   * a stop ends the store call in flight at once (Deadline::stop); work is
//     stopped and joined, the lease released on a call bounded by T/3, or
//     cut at once by spec.exit_now (docs/lease-stop.md).
//   * released also when work returns or throws (bounded by T/3), after a
//     step-down, after an attempt with no answer; never after a refusal.
//   * store_unreachable once per outage (a call cut by the stop opens none),
//     store_reachable once an acquire or renewal is answered again.
FORGEMETER_API CampaignEnd campaign(LeaseStore& store, const CampaignSpec& spec, std::stop_token stop,
                                    std::function<void(Term&)> work);

// Host name + "-" + 12 random hex digits, e.g. `web-7-3f9a2c01b2d4`; the host
// name is cut so that the whole fits kCampaignOwnerMaxBytes, and bytes that
// are not [A-Za-z0-9.-] become `_` (so never the tag's `#`). Random from
// std::random_device.
FORGEMETER_API std::string make_owner_id();

// Declares an application's lease names in one place: a name can be claimed
// once per registry, so two nets in one process can never campaign on the
// same name by accident.
//   inline const std::string_view kSweeperLease =
//       forgemeter::LeaseNames::process().claim("merge-gate-sweeper");
// Thread-safe. claim() throws std::invalid_argument for a name lease.h
// rejects and std::logic_error for a second claim of one name; the returned
// view stays valid as long as the registry.
class FORGEMETER_API LeaseNames {
 public:
  std::string_view claim(std::string_view name);
  bool claimed(std::string_view name) const;
  static LeaseNames& process();  // one registry for the process (never destroyed)

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_ = make_impl();
  static std::shared_ptr<Impl> make_impl();
};

}  // namespace forgemeter
