// lane_fence.h — what the forwarder asks of elected lanes (`forgemeter
// proxy --elect`): whether a lane is elected, a pass for one request in it
// (the term it goes under, held while the request is performed so that a
// step-down can wait for it), and the answer to a request the Transport's
// gate refused. The forwarder knows no lease: the command implements this
// (src/cli/proxy/elected_lanes.h).
//
// Thread-safety: every method from any worker at once. A pass is entered
// and dropped on the thread that performs its request (the Transport asks
// its gate on that thread).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>

#include "forgemeter/lane.h"
#include "proxy/refusal.h"

namespace forgemeter::proxy {

struct FencePass {
  std::uint64_t term = 0;      // the term the request goes under; 0: this replica does not lead (refused unsent)
  std::stop_token stop;        // cancels the request when a step-down gives up waiting for it
  std::shared_ptr<void> held;  // the pass: the request counts as in flight until this is dropped
};

class LaneFence {
 public:
  virtual ~LaneFence() = default;
  // nullopt when `lane` is not elected; else the pass of one request.
  virtual std::optional<FencePass> enter(Lane lane) = 0;
  // The answer to a request in `lane` that the gate refused: who leads.
  virtual Refusal refused(Lane lane) = 0;
};

}  // namespace forgemeter::proxy
