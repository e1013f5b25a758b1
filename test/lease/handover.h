// test/lease/handover.h — one clean (or resigned) handover between two campaigns on one
// lease, timed on the real clock: the holder (on store `a`) serves until told,
// its work returns (its release follows), and the successor (on `b`, whose
// first acquire was refused) takes over. For the conformance rows and the
// benches (bench/*_bench.cc); no doctest in it.
//
// Thread-safety: one call at a time per name.
#pragma once

#include <atomic>
#include <optional>
#include <string>

#include "forgemeter/lease.h"

namespace forgemeter::testing {

// Forwards the calls (resign too), counts refused acquires, and forwards the
// store's wake-ups only when `wake_ups` (else it waits out the deadline:
// suppressed).
class Relay final : public LeaseStore, public LeaseChanges {
 public:
  Relay(LeaseStore& inner, bool wake_ups)
      : inner_(inner), changes_(wake_ups ? dynamic_cast<LeaseChanges*>(&inner) : nullptr) {}
  LeaseResult acquire(std::string_view n, std::string_view o, WallTime now, Duration ttl, const Deadline& d) override {
    LeaseResult r = inner_.acquire(n, o, now, ttl, d);
    if (r.status == LeaseStatus::refused) ++refused;
    return r;
  }
  LeaseResult renew(std::string_view n, std::string_view o, WallTime now, Duration ttl, const Deadline& d) override {
    return inner_.renew(n, o, now, ttl, d);
  }
  LeaseResult release(std::string_view n, std::string_view o, const Deadline& d) override {
    return inner_.release(n, o, d);
  }
  LeaseState inspect(std::string_view n, const Deadline& d) override { return inner_.inspect(n, d); }
  LeaseResult resign(std::string_view n, const Deadline& d) override { return inner_.resign(n, d); }
  std::uint64_t change_mark(std::string_view n) override { return changes_ ? changes_->change_mark(n) : 0; }
  bool wait_for_change(std::string_view n, std::uint64_t mark, const Deadline& d) override {
    if (changes_) return changes_->wait_for_change(n, mark, d);
    d.clock->wait_until(d.at, d.stop);
    return false;
  }
  std::atomic<int> refused{0};

 private:
  LeaseStore& inner_;
  LeaseChanges* const changes_;
};

struct Handover {
  Duration took{};      // the holder's work returned -> the successor's work started
  int max_serving = 0;  // terms served at once, at most (1: never two)
};

// `wake_ups` false: the successor's store hides its wake-ups (LeaseChanges),
// as a lost wake-up would, so it takes over at its next poll. nullopt when a
// step did not happen within 20 s.
std::optional<Handover> handover(LeaseStore& a, LeaseStore& b, const std::string& name, bool wake_ups, Duration ttl,
                                 Duration retry);

// The holder (on `a`) serves until an operator's resign request (on `op`)
// ends its term; the successor (on `b`, whose first acquire was refused)
// takes over. `took`: the request's sending -> the successor's work started.
// Both campaign at TTL 9 s, retry 3 s. nullopt when a step did not happen
// within 20 s.
std::optional<Handover> resign_handover(LeaseStore& a, LeaseStore& b, LeaseStore& op, const std::string& name);

}  // namespace forgemeter::testing
