// test/lease/exclusion.h — exclusion when an operator makes a mistake, on any
// store, on the real clock:
//   * same_owner_is_refused: two campaigns given one owner name (as two
//     `lease run --owner web-1` processes would be), each on its own store
//     object: the second is refused and told the owner is in use, never serves
//     while the first does, and takes over once the first stops.
//   * term_cannot_increase: a lease whose record (written by hand) carries the
//     largest term the store keeps is refused with the reason, keeps its term,
//     and a campaign on it reports term_exhausted and serves nothing.
// Margins: TTL 3 s (retry 1 s); the handover after a stop within 10 s, each
// call within 10 s (liveness only, for a loaded 2-core machine).
#pragma once

#include <cstdint>
#include <string>

#include "forgemeter/lease.h"

namespace fmtest {

void same_owner_is_refused(forgemeter::LeaseStore& a, forgemeter::LeaseStore& b, const std::string& name);
void term_cannot_increase(forgemeter::LeaseStore& store, const std::string& name, std::uint64_t largest);

}  // namespace fmtest
