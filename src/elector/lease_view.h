// lease_view.h — one lease as this replica serves it: who holds it, in which
// term, whether this replica leads, the promises it has handed out, and the
// clients waiting for its next change (event streams and long polls).
//
// The promise (docs/elector.md): an answer computed at `now` for a request
// that arrived at `arrived` says leader only while this replica holds a term
// it can prove (Term::valid()) and has not begun to step down; its promise
// ends at P = min(D, now + cap), D being the term's step-down deadline, and
// valid_for_ms = floor(P − arrived). The caller sent its request before it
// arrived, so send + valid_for_ms <= P <= D. step_down() first stops saying
// leader, then returns the latest P handed out (plus 1000 ppm of its length:
// clock rates): waiting until then before the release keeps every promise
// inside this replica's term.
//
// Thread-safety: every method may be called from any thread; one mutex
// orders a promise and a step-down, so no promise is handed out after
// step_down() returned its end. Writes to clients never block (the serving
// room's Reply); a client that does not read loses its stream.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/mutex.h"
#include "elector/answer.h"
#include "forgemeter/campaign.h"
#include "forgemeter/lease.h"
#include "forgemeter/lease_metrics.h"
#include "serve/exchange.h"

namespace forgemeter::elector {

struct LeaseViewOptions {
  std::string name, owner;  // the lease, and this replica's owner as given
  Duration ttl{};           // the campaign's, for the leader's expiry
  Duration cap{};           // --answer-validity: the longest promise past its answer
  const Clock* clock = nullptr;
  const LeaseMetrics* metrics = nullptr;  // the campaign's: the leader's last proven renewal
};

// Answers `reply` with `a` (200, JSON), its lease, leader and valid_for_ms
// in the access log's record.
void send_answer(serve::Reply& reply, const LeaseAnswer& a);

class LeaseView {
 public:
  explicit LeaseView(LeaseViewOptions o);

  // The campaign's side.
  void elected(const Term& term);  // a term began: leader from now on (event "elected")
  // Stops answering leader and tells the streams ("stepped_down"); returns
  // the end of the longest promise handed out, on this replica's monotonic clock.
  SteadyTime step_down();
  void left();                         // the promises are waited out: the term is forgotten
  void released(std::uint64_t term);   // this replica released the lease ("released")
  void observed(const LeaseState& s);  // what the store says (observe()): a handover, a release, an outage
  void store_reachable(bool reachable);

  // The clients' side. `arrived`: when the request reached the handler.
  LeaseAnswer answer(SteadyTime arrived);
  std::string current_id() const;
  std::string compat() const;                    // GET / (compatibility): compat_json()
  std::optional<std::uint64_t> leading() const;  // this replica's term while it says leader
  LeaseAnswer state() const;                     // the lease now, with no promise (valid_for_ms 0)
  // An event stream: the current state first (event "state"), then each
  // change. `compat`: nais/elector's frames, on a change of holder only.
  void watch(serve::Reply stream, bool compat);
  // A long poll: answered at the next change, or at `until` (tick()).
  void await_change(serve::Reply reply, SteadyTime arrived, SteadyTime until);
  // Long polls at their end answered; every `heartbeat` a comment to each
  // stream (a gone client is noticed and dropped). Returns the next instant
  // tick() has work.
  SteadyTime tick(SteadyTime now, Duration heartbeat);
  void end_clients();  // the server stops: streams ended, long polls answered

 private:
  struct Stream {
    serve::Reply reply;
    bool compat;
  };
  struct Poll {
    serve::Reply reply;
    SteadyTime arrived, until;
  };
  void publish_locked(const char* event) REQUIRES(mu_);
  LeaseAnswer state_locked() const REQUIRES(mu_);
  LeaseAnswer answer_locked(SteadyTime arrived, SteadyTime now) REQUIRES(mu_);
  void set_holder_locked(std::string holder) REQUIRES(mu_);

  const LeaseViewOptions o_;
  const Clock& clock_;
  mutable core_detail::Mutex mu_;
  std::optional<Term> term_ GUARDED_BY(mu_);  // this replica's term, until left()
  bool stepping_down_ GUARDED_BY(mu_) = false;
  SteadyTime promised_until_ GUARDED_BY(mu_){};  // the longest promise's end
  std::string holder_ GUARDED_BY(mu_);           // as given (no tag); "" when free
  std::string holder_id_ GUARDED_BY(mu_);        // as the store has it, when observed
  std::uint64_t term_no_ GUARDED_BY(mu_) = 0;
  UtcMillis expiry_ GUARDED_BY(mu_){};
  bool reachable_ GUARDED_BY(mu_) = true;
  std::uint64_t id_term_ GUARDED_BY(mu_) = 0, id_seq_ GUARDED_BY(mu_) = 0;
  UtcMillis holder_since_ GUARDED_BY(mu_){};  // compat's last_update
  std::vector<Stream> streams_ GUARDED_BY(mu_);
  std::vector<Poll> polls_ GUARDED_BY(mu_);
  SteadyTime next_heartbeat_ GUARDED_BY(mu_){};
};

}  // namespace forgemeter::elector
