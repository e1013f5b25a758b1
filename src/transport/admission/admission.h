// admission.h — the one place that decides whether a hop of a Transport
// request goes on the wire now, and what each answer tells it.
//
// In this order (the cache in front of it is CacheFront's: a coalesced
// follower never gets here, a revalidation does): the lane's gate (elected
// lanes) and its reserve on the budget it would spend refuse; a pause of its
// installation after a secondary limit, the pacing governor (paced lanes
// only) and the secondary-limit avoidance wait; after a wait the gate is
// asked again. A waiting request is not on
// the wire and not counted; its wait ends on Request::stop (`cancelled`) or,
// when it would outlast the request's own timeout or total_timeout, at once
// (`installation_paused` for a pause, `paced` otherwise). The in-flight slot
// is taken last, so a request waiting for its pace holds none. With nothing
// gated, reserved, paused or paced and the secondary limits off, admit() is
// one branch (and the in-flight mark). After each answer: a secondary limit pauses its installation; a
// budget reading feeds the reserves and the governor. Why and how:
// docs/rate-limits.md.
//
// What it is given is its own: a HopAsk (the hop's request, lane, URL,
// origin and installation, which the wire decided) and an answer's
// AnswerSeen, never the wire's counter or libcurl; it records its refusals
// and waits on the Meter itself, charged as the hop would have been.
//
// Thread-safety: every method may be called from any thread at once.
// Errors: the constructor throws std::invalid_argument naming the field of
// RateLimitOptions that is unusable; admit() and note_answer() throw only
// std::bad_alloc.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "forgemeter/clock.h"
#include "forgemeter/exchange.h"
#include "forgemeter/meter.h"
#include "forgemeter/rate_limits.h"
#include "transport/admission/installation_pauses.h"
#include "transport/admission/lane_gates.h"
#include "transport/admission/lane_reserves.h"
#include "transport/admission/load_board.h"
#include "transport/admission/pacing_governor.h"
#include "transport/admission/secondary_limits.h"

namespace forgemeter::transport_detail {

class Admission;

// An admitted hop's place among its installation's requests in flight, in
// the secondary limits' count or else the load board's: given back when it is
// destroyed (after the hop's exchange).
class InFlightSlot {
 public:
  InFlightSlot() = default;
  InFlightSlot(const InFlightSlot&) = delete;
  InFlightSlot& operator=(const InFlightSlot&) = delete;
  ~InFlightSlot() { release(); }
  void hold(SecondaryLimits* limits, std::uint64_t installation, std::uint64_t origin) noexcept {
    release();
    limits_ = limits;
    installation_ = installation;
    origin_ = origin;
  }
  void hold(Mark& in_flight) noexcept {
    release();
    in_flight.fetch_add(1, std::memory_order_relaxed);
    mark_ = &in_flight;
  }
  bool held() const noexcept { return limits_ != nullptr || mark_ != nullptr; }
  void release() noexcept;

 private:
  SecondaryLimits* limits_ = nullptr;
  std::uint64_t installation_ = 0;
  std::uint64_t origin_ = 0;  // origin_id()
  Mark* mark_ = nullptr;
};

// The hop admit() decides on.
struct HopAsk {
  const Request& req;
  Lane lane;
  std::string_view origin;  // the request's own origin (origin_key): a hop charged to an installation goes there
  const std::string& url;
  std::string_view method;
  bool with_body = false;
  std::uint64_t installation = 0;           // what the hop is charged to (0: none)
  SteadyTime deadline = SteadyTime::max();  // the request's total_timeout's end
  Duration* waited = nullptr;               // where its waits add up (Response::waited); none: nowhere
};

// An answer to a hop, as note_answer() reads it.
struct AnswerSeen {
  int status = kNoAnswer;
  const RateLimitHeaders& headers;
  const std::string& body;         // its body (or the prefix a streamed one keeps)
  Api api = Api::rest;             // the hop's
  std::string_view url;            // the hop's
  std::string_view origin;         // the request's own origin (origin_key)
  std::uint64_t installation = 0;  // what the hop was charged to (0: none)
};

// What an answer tells the retry policy of the limits.
struct AnswerNote {
  bool budget_spent = false;     // the answer's remaining budget read 0, or its GraphQL errors say RATE_LIMITED
  bool graphql_limited = false;  // a GraphQL answer whose errors say RATE_LIMITED (any status)
  bool secondary = false;        // the answer is a secondary rate limit
  // A secondary limit's wait, and whether a Retry-After said so (else it is PauseOptions::wait).
  std::chrono::seconds secondary_wait{};
  bool retry_after_given = false;
};

// The settings admission reads: the rate limits, and of the rest of
// TransportOptions what bounds a wait and the figures.
struct AdmissionSettings {
  RateLimitOptions limits;
  Duration hop_timeout{};  // TransportOptions::timeout: a request's own when it has none; 0: none
  std::size_t max_installations = 1000;
};

class Admission {
 public:
  // `meter` and `clock` are borrowed: they must outlive the admission.
  Admission(const AdmissionSettings& settings, Meter& meter, const Clock& clock);

  void gate(Lane lane, std::function<bool()> valid) { gates_.gate(lane, std::move(valid)); }
  void ungate(Lane lane) { gates_.ungate(lane); }

  // Whether `hop` may be put on the wire now, after the waits it may make.
  // A refusal is recorded on the meter and the error says why;
  // on ok, `slot` holds the hop's in-flight place when the limits count one.
  TransportError admit(const HopAsk& hop, InFlightSlot& slot) {
    const bool gate_open = gates_.allows(hop.lane);  // asked once: a gate is the caller's code
    if (gate_open && (hop.installation == 0 || (quiet_ && !pauses_.any()))) {  // the usual case
      slot.hold(board_.counts(hop.installation).in_flight);
      return {};
    }
    TransportError e = admit_slowly(hop, gate_open, slot);
    if (!e && !slot.held()) slot.hold(board_.counts(hop.installation).in_flight);
    return e;
  }

  // A request waiting for `cause` before a hop charged to `installation`
  // (a retry's wait after a secondary limit is a pause's).
  WaitingMark waiting(std::uint64_t installation, WaitCause cause) noexcept { return {board_, installation, cause}; }

  // Requests in flight and waiting now (Transport::figures()).
  TransportFigures figures() const {
    TransportFigures f = board_.figures(limits_.in_flight());
    if (!governor_.empty()) f.unpaced = governor_.unpaced();
    return f;
  }

  // Whether note_answer() reads an answer of `status` to a hop to `api`:
  // below 400 only a reserve, the governor or a GraphQL limit does; kNoAnswer never.
  bool reads_answer(int status, Api api) const noexcept {
    return status != kNoAnswer && (status >= 400 || watched_ || api == Api::graphql);
  }
  // Learns from an answer; returns what the retry policy reads of it.
  AnswerNote note_answer(const AnswerSeen& answer);

  // Records that `hop` waited `waited` for `cause` before the wire (or
  // before giving up), charged as the hop would have been.
  void record_wait(const HopAsk& hop, WaitCause cause, Duration waited);

 private:
  TransportError admit_slowly(const HopAsk& hop, bool gate_open, InFlightSlot& slot);
  TransportError wait_in_turn(const HopAsk& hop, InFlightSlot& slot);
  TransportError refusal(const HopAsk& hop, bool gate_open);
  TransportError wait_out_pause(const HopAsk& hop);
  TransportError wait_for_pace(const HopAsk& hop, SteadyTime limit);
  TransportError wait_for_limits(const HopAsk& hop, SteadyTime limit, InFlightSlot& slot);
  SteadyTime wait_limit(const HopAsk& hop) const;
  void record_refused(const HopAsk& hop);

  const AdmissionSettings settings_;
  Meter& meter_;
  const Clock& clock_;
  LoadBoard board_;
  LaneGates gates_;
  LaneReserves reserves_;
  InstallationPauses pauses_;
  PacingGovernor governor_;
  SecondaryLimits limits_;
  const bool limits_on_;
  const bool watched_;  // a reserve or a paced lane reads budgets
  const bool quiet_;    // no reserve, no paced lane, no secondary limit: only a pause can hold a hop
};

}  // namespace forgemeter::transport_detail
