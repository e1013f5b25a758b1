// forgemeter/elected_lane.h — one replica per lane, enforced where the budget is spent.
//
//   forgemeter::Transport transport({.meter = &meter});
//   forgemeter::PostgresStore store({.conninfo = "postgresql://app@db/app"});
//   forgemeter::elect(transport, forgemeter::Lane{"merge-gate-sweeper"}, store,
//                     {.owner = forgemeter::make_owner_id(), .ttl = std::chrono::minutes(3)},
//                     stop_source.get_token(), [&](forgemeter::Term& term) {
//                       while (!term.stop_token().stop_requested()) sweep_once(transport);
//                     });
//
// elect() campaigns (campaign(), forgemeter/campaign.h) on the lease named
// after the lane, running `work` for each term with the calling thread in that
// lane, and gates the lane on `transport` before its first attempt: a request
// in the lane, from any thread, is sent only while the current Term::valid()
// (asked before every hop and after any wait), else refused unsent
// (lane_refused, `refused` on the answers line), so a deposed replica late to see its stop cannot spend the
// budget. The lane stays gated after elect() returns, until ungate_lane(lane).
//
// Thread-safety: as campaign(); the gate may be asked from any thread.
// Ownership: `transport` and `store` are borrowed and must outlive elect(); the
// gate shares what it reads, so the transport may outlive elect() with it in
// place. Errors: std::invalid_argument, before anything is gated or sent, for
// the lane `other`, a spec.name other than the lane's, an unusable spec or an
// empty work; otherwise as campaign() (work's exception propagates after
// release).
#pragma once

#include <functional>
#include <stop_token>

#include "forgemeter/campaign.h"
#include "forgemeter/lane.h"
#include "forgemeter/transport.h"

namespace forgemeter {

// spec.name may be left empty: it becomes lane.name().
FORGEMETER_API CampaignEnd elect(Transport& transport, Lane lane, LeaseStore& store, CampaignSpec spec,
                                 std::stop_token stop, std::function<void(Term&)> work);

}  // namespace forgemeter
