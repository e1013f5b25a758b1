// hop_guards.h — what may keep a hop of a Transport request off the wire,
// and what each answer tells it.
//
// Before a hop is sent (each redirect hop, each retry): its lane's gate
// (elected lanes), its lane's reserve on the budget it would spend, and any
// pause of its installation after a secondary rate limit, waited out when
// the request may wait that long. After each answer: a secondary limit
// pauses its installation; a budget reading feeds the reserves. Why and how:
// docs/rate-limits.md.
//
// Thread-safety: every method may be called from any thread at once.
// Errors: the constructor throws std::invalid_argument for an unusable
// reserve; admit() and note_answer() throw only std::bad_alloc.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "forgemeter/clock.h"
#include "forgemeter/transport.h"
#include "transport/hop_counter.h"
#include "transport/installation_pauses.h"
#include "transport/lane_gates.h"
#include "transport/lane_reserves.h"
#include "transport/retry_policy.h"

namespace forgemeter::transport_detail {

class HopGuards {
 public:
  // Both are borrowed: they must outlive the guards.
  HopGuards(const TransportOptions& options, const Clock& clock);

  void gate(Lane lane, std::function<bool()> valid) { gates_.gate(lane, std::move(valid)); }
  void ungate(Lane lane) { gates_.ungate(lane); }

  // Whether a hop of `req` to `url`, charged to `installation`, may be put on
  // the wire now, after waiting out any pause of its installation that ends
  // before `deadline` (the request's total time). A refusal is recorded
  // through `counter` and the error says why.
  TransportError admit(const Request& req, HopCounter& counter, const std::string& url, std::uint64_t installation,
                       SteadyTime deadline) {
    const bool gate_open = gates_.allows(counter.lane());  // asked once: a gate is the caller's code
    if (gate_open && reserves_.empty() && (installation == 0 || !pauses_.any())) return {};  // the usual case
    return admit_slowly(req, counter, gate_open, url, installation, deadline);
  }

  // Learns from the answer `counter` holds (status `status`, body `body`) to
  // a hop charged to `installation`; returns what the retry policy reads of it.
  HopOutcome note_answer(const HopCounter& counter, const std::string& body, int status, std::uint64_t installation);

 private:
  TransportError admit_slowly(const Request& req, HopCounter& counter, bool gate_open, const std::string& url,
                              std::uint64_t installation, SteadyTime deadline);
  // The time waited is recorded through `counter` (WaitCause::pause).
  TransportError wait_out_pause(const Request& req, HopCounter& counter, const std::string& url,
                                std::uint64_t installation, SteadyTime deadline);

  const TransportOptions& options_;
  const Clock& clock_;
  LaneGates gates_;
  LaneReserves reserves_;
  InstallationPauses pauses_;
};

}  // namespace forgemeter::transport_detail
