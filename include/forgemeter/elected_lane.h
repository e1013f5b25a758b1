// forgemeter/elected_lane.h — one replica per lane, enforced where the budget is spent.
//
//   forgemeter::Transport transport({.meter = &meter});
//   forgemeter::PostgresStore store({.conninfo = ...});
//   forgemeter::elect(transport, forgemeter::Lane{"merge-gate-sweeper"}, store,
//                     {.owner = forgemeter::make_owner_id(), .ttl = std::chrono::minutes(3)},
//                     stop_source.get_token(), [&](forgemeter::Term& term) {
//                       while (!term.stop_token().stop_requested()) sweep_once(transport);
//                     });
//
// elect() campaigns (forgemeter/campaign.h, run()) on the lease named after
// the lane and runs `work` for each term with the calling thread's requests
// tagged with that lane (a LaneScope). Before the first attempt it gates the
// lane on `transport` (Transport::gate_lane): from then on, any request in
// that lane — from any thread — is sent only while this process holds a
// valid term (Term::valid() of the current term, asked before every hop);
// otherwise it is refused before it is sent (TransportErrc::lane_refused,
// counted on the answers line as `refused=<n>`, not in N). So a deposed
// replica whose loop is late to notice its stop token cannot spend the
// budget: its late requests are refused, not sent.
//
// The lane stays gated after elect() returns — every request in it refused —
// until the caller calls transport.ungate_lane(lane) (or gates it anew).
//
// Thread-safety: as run(); the gate may be asked from any thread.
// Ownership: `transport` and `store` are borrowed and must outlive elect();
// the gate it installs holds only what it needs (shared ownership), so the
// transport may outlive elect() with the lane still gated.
// Errors: std::invalid_argument, before anything is gated or sent, for the
// lane `other`, a spec.name other than the lane's name, an unusable spec or
// an empty work; otherwise as run() (work's exception propagates after the
// release).
#pragma once

#include <functional>
#include <stop_token>

#include "forgemeter/campaign.h"
#include "forgemeter/lane.h"
#include "forgemeter/transport.h"

namespace forgemeter {

// spec.name may be left empty: it becomes lane.name().
RunEnd elect(Transport& transport, Lane lane, LeaseStore& store, CampaignSpec spec, std::stop_token stop,
             std::function<void(Term&)> work);

}  // namespace forgemeter
