// test/lease/handover.h — one clean handover between two campaigns on one
// lease, timed on the real clock: the holder (on store `a`) serves until told,
// its work returns (its release follows), and the successor (on `b`, whose
// first acquire was refused) takes over. For the conformance rows and the
// benches (bench/*_bench.cc); no doctest in it.
//
// Thread-safety: one call at a time per name.
#pragma once

#include <optional>
#include <string>

#include "forgemeter/lease.h"

namespace forgemeter::testing {

struct Handover {
  Duration took{};      // the holder's work returned -> the successor's work started
  int max_serving = 0;  // terms served at once, at most (1: never two)
};

// `wake_ups` false: the successor's store hides its wake-ups (LeaseChanges),
// as a lost wake-up would, so it takes over at its next poll. nullopt when a
// step did not happen within 20 s.
std::optional<Handover> handover(LeaseStore& a, LeaseStore& b, const std::string& name, bool wake_ups, Duration ttl,
                                 Duration retry);

}  // namespace forgemeter::testing
