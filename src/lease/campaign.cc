// campaign(): the campaign loop — campaign, serve a term, step down fail-closed
// (the timing contract is in forgemeter/campaign.h).
//
// One Campaign per campaign() call; its methods run on the campaign thread (the
// caller's), the only writer of the Term::State it hands out. Work runs on a
// thread per term; events go out on the EventPump's thread.
#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>

#include "forgemeter/campaign.h"
#include "lease/event_pump.h"
#include "lease/event_text.h"
#include "lease/holder_id.h"
#include "lease/metrics_state.h"
#include "lease/term_state.h"

namespace forgemeter {
namespace {

using lease_detail::EventPump;
using lease_detail::EventText;

using namespace std::chrono_literals;

// Every duration of the contract, from the TTL truncated as the stores keep it.
struct Timing {
  explicit Timing(const CampaignSpec& s)
      : ttl(lease_ttl(s.ttl)), third(ttl / 3), retry(s.retry.value_or(third)), window(serving_window(s)) {}
  Duration ttl, third, retry;
  Duration window;                                                // W: the serving window
  Duration proof_window() const { return window - kStampSlack; }  // from a call's sending to its step-down
};

// When a call was sent: the monotonic instant first, then the wall stamp, so
// the store's expiry is at most ttl after the monotonic instant.
struct Sent {
  SteadyTime steady;
  WallTime wall;
};

enum class Ending : std::uint8_t { stopped, work_returned, refused, stepped_down, resigned };

struct Held {
  Ending how;
  std::string holder;  // for `refused`: who holds it now
};

class Campaign {
 public:
  Campaign(LeaseStore& store, const CampaignSpec& spec, std::stop_token stop, std::function<void(Term&)>& work)
      : store_(store),
        spec_(spec),
        id_(lease_detail::tagged_owner(spec.owner)),
        clock_(spec.clock ? *spec.clock : system_clock()),
        stop_(std::move(stop)),
        work_(work),
        t_(spec),
        text_(spec.name, spec.owner),
        changes_(dynamic_cast<LeaseChanges*>(&store)),
        metrics_(spec.metrics, spec.name, t_.ttl, clock_),
        events_(spec.on_event) {}

  CampaignEnd run() {
    SteadyTime next = clock_.steady_now();
    std::uint64_t seen = 0;
    while (!stop_.stop_requested()) {
      wait(next, seen, stop_);
      if (stop_.stop_requested()) break;
      seen = mark();  // before the acquire: no change is missed
      const Sent sent = stamp();
      next = sent.steady + t_.retry;
      LeaseResult r = store_.acquire(spec_.name, id_, sent.wall, t_.ttl, bound(sent.steady + t_.third, stop_));
      heard(LeaseOp::acquire, r, /*decides=*/true, stop_, sent.steady);
      if (r.status == LeaseStatus::granted) metrics_->proven(sent.wall);
      if (r.status == LeaseStatus::no_answer) {
        release(/*after_unanswered_attempt=*/true);  // it may have taken the lease; after a stop too
        continue;
      }
      // A refusal by nobody (PostgreSQL's quarantine after a crash) reports no expiry;
      // one with an error (a term that cannot increase) is polled every retry too.
      if (r.status == LeaseStatus::refused && !r.holder.empty() && r.error.empty())
        next = std::min(next, expires(r.expiry));
      if (r.status == LeaseStatus::refused) tell_refusal(r);
      if (r.status != LeaseStatus::granted) continue;
      if (stop_.stop_requested()) {  // granted while stopping: give it back, serve nothing
        release(false);
        break;
      }
      // Heard before the work starts, so a resign request from then on wakes the holder.
      Ending how = serve(r.term, sent, mark());
      if (how == Ending::stopped) return CampaignEnd::stopped;
      if (how == Ending::work_returned) return CampaignEnd::work_returned;
      if (spec_.on_loss == OnLoss::stop) return CampaignEnd::term_ended;
      // Resigned: stay out one TTL, deaf to wake-ups, so leadership moves on
      // to a successor instead of bouncing back.
      if (how == Ending::resigned) clock_.wait_until(clock_.steady_now() + t_.ttl, stop_);
      next = clock_.steady_now();
    }
    return CampaignEnd::stopped;
  }

 private:
  Sent stamp() const {
    const SteadyTime s = clock_.steady_now();
    return {s, clock_.now()};
  }
  Deadline bound(SteadyTime at, std::stop_token stop = {}) const { return {&clock_, at, std::move(stop)}; }

  // A wait until `at` or `wake` (a stop; for a holder, work's return too) or —
  // when the store hears of changes — a change of the lease past `mark`. A
  // candidate waits so before its next attempt (a release, a change of hands
  // wakes it); a holder before its next renewal (a resign request wakes it, and
  // the renewal that follows reads it). The wake-up only wakes: the next call
  // decides. True when a change was heard.
  bool wait(SteadyTime at, std::uint64_t mark, const std::stop_token& wake) const {
    if (changes_ != nullptr) return changes_->wait_for_change(spec_.name, mark, bound(at, wake));
    clock_.wait_until(at, wake);
    return false;
  }
  std::uint64_t mark() const { return changes_ != nullptr ? changes_->change_mark(spec_.name) : 0; }

  // The instant on the steady face at which a lease expiring at `expiry`
  // (the caller's wall clock, as stamped) is takeable: a candidate tries then
  // rather than at its next poll.
  SteadyTime expires(UtcMillis expiry) const {
    const SteadyTime s = clock_.steady_now();
    const Duration left = expiry - clock_.now();
    return left > Duration::zero() ? s + left : s;
  }

  // A call answered `r`. Outage episodes, one report each way:
  // an unanswered call opens one, unless `cut` (the call's stop) was requested
  // — the campaign gave up on it; only an answered call that `decides` (an
  // acquire or renewal) closes it: a store can answer releases while every
  // acquire hangs (a row lock), and that is one outage, not one per attempt.
  // The outage is measured from the sending of its first unanswered call.
  // Each call is also a figure: its round trip, or an error; who holds the lease.
  void heard(LeaseOp op, const LeaseResult& r, bool decides, const std::stop_token& cut, SteadyTime sent) {
    metrics_->call(op, sent, r, cut.stop_requested());
    if (r.status == LeaseStatus::granted) metrics_->held_by(id_);
    if (r.status == LeaseStatus::refused) metrics_->held_by(r.holder);
    const SteadyTime now = clock_.steady_now();
    const bool failed = !r.answered();
    if (failed && !outage_ && !cut.stop_requested()) {
      outage_ = true;
      outage_since_ = sent;
      events_.post(text_.unreachable(r.error));
    } else if (!failed && outage_ && decides) {
      outage_ = false;
      events_.post(text_.reachable(now - outage_since_));
    }
  }

  // A refusal the operator must hear of, once: another campaign holding the
  // lease under this campaign's owner name (once per such holder), a term
  // that cannot increase (the store's error; once).
  void tell_refusal(const LeaseResult& r) {
    if (!r.error.empty()) {
      if (!told_exhausted_) events_.post(text_.term_exhausted(r.error));
      told_exhausted_ = true;
    } else if (r.holder != id_ && r.holder != told_holder_ && holder_name(r.holder) == spec_.owner) {
      told_holder_ = r.holder;
      events_.post(text_.owner_in_use(r.holder, r.term));
    }
  }

  // A store that read its server's clock (PostgreSQL's renewal): replicas
  // whose clocks differ by more than T − W overlap (docs/lease-timing.md), so
  // a difference from the server's of over a quarter of it is told, once. The
  // server read its clock between the sending and the answer, so only a
  // reading outside that span by more than the bound is a proven difference
  // (a slow round trip alone never is); its size is told from the midpoint.
  void check_clock(UtcMillis store_now, WallTime sent) {
    if (store_now == UtcMillis{} || told_clock_) return;
    const WallTime answered = clock_.now(), mid = sent + (answered - sent) / 2;
    const Duration off = store_now - mid, bound = (t_.ttl - t_.window) / 4;
    if (store_now - answered <= bound && sent - store_now <= bound) return;
    told_clock_ = true;
    events_.post(text_.clock_differs(off, bound * 4));
  }

  // On a call of its own that the campaign's stop does not cancel, bounded by
  // TTL/3 — after a stop too, so a release held up behind a row lock still
  // lands and hands over (docs/lease-stop.md); only spec.exit_now cuts it.
  void release(bool after_unanswered_attempt) {
    const SteadyTime sent = clock_.steady_now();
    LeaseResult r = store_.release(spec_.name, id_, bound(sent + t_.third, spec_.exit_now));
    heard(LeaseOp::release, r, /*decides=*/false, {}, sent);
    if (r.status == LeaseStatus::released) events_.post(text_.released(r.term, after_unanswered_attempt));
  }

  // Serves one term won by the acquire sent at `sent` (the store's changes
  // read up to `seen`); returns how it ended, after work has returned and the
  // lease was released (unless refused). Rethrows what work threw, after the release.
  Ending serve(std::uint64_t number, const Sent& sent, std::uint64_t seen) {
    auto state = std::make_shared<Term::State>(clock_, number, lease_stamp(sent.wall), sent.steady + t_.proof_window());
    std::stop_source wake;  // requested by `stop` or by work's return: both end the term
    std::stop_callback on_stop(stop_, [&wake] { wake.request_stop(); });
    std::atomic<bool> done{false};
    std::exception_ptr failure;
    metrics_->term_began(state);
    events_.post(text_.elected(number, t_.ttl));
    std::thread worker;
    try {
      worker = std::thread([&, state] {
        Term term(state);
        try {
          work_(term);
        } catch (...) {
          failure = std::current_exception();
        }
        done.store(true, std::memory_order_release);
        wake.request_stop();
      });
    } catch (...) {  // no thread: give the term back before reporting the failure
      state->end();
      metrics_->term_ended();
      release(false);
      throw;
    }
    Held held{Ending::stopped, {}};
    try {
      held = hold(*state, sent.steady, seen, wake.get_token(), done);
    } catch (...) {  // a store that throws (it should not): end the term, keep no thread behind
      state->end();
      metrics_->term_ended();
      worker.join();
      throw;
    }
    state->end();  // stop first ...
    metrics_->term_ended();
    if (held.how == Ending::refused) events_.post(text_.lost(number, held.holder));  // ... log after
    if (held.how == Ending::stepped_down) events_.post(text_.stepped_down(number, t_.window));
    if (held.how == Ending::resigned) events_.post(text_.resigned(number, t_.ttl));
    worker.join();
    if (held.how != Ending::refused) release(false);
    if (failure) std::rethrow_exception(failure);
    return held.how;
  }

  // Renews every TTL/3 — at once when the store tells of a change (a resign
  // request) — until something ends the term.
  Held hold(Term::State& st, SteadyTime last_sent, std::uint64_t seen, const std::stop_token& wake,
            const std::atomic<bool>& done) {
    SteadyTime next_renew = last_sent + t_.third;
    int unanswered = 0;
    for (;;) {
      const SteadyTime deadline = st.deadline();
      const bool changed = wait(std::min(next_renew, deadline), seen, wake);
      if (stop_.stop_requested()) return {Ending::stopped, {}};
      if (done.load(std::memory_order_acquire)) return {Ending::work_returned, {}};
      if (clock_.steady_now() >= deadline) return {Ending::stepped_down, {}};
      if (!changed && clock_.steady_now() < next_renew) continue;
      seen = mark();  // before the renewal: a request landing after it wakes the next wait
      const Sent sent = stamp();
      next_renew = sent.steady + t_.third;
      // `wake`: a stop, or work's return, abandons the renewal at once.
      LeaseResult r = store_.renew(spec_.name, id_, sent.wall, t_.ttl, bound(std::min(next_renew, deadline), wake));
      heard(LeaseOp::renew, r, /*decides=*/true, wake, sent.steady);
      if (r.status == LeaseStatus::refused) return {Ending::refused, std::move(r.holder)};
      if (r.status == LeaseStatus::granted && r.resign_requested) return {Ending::resigned, {}};
      if (r.status != LeaseStatus::granted) {
        ++unanswered;  // rides out a blip: only the deadline ends the term
        continue;
      }
      check_clock(r.store_now, sent.wall);
      if (clock_.steady_now() >= deadline) return {Ending::stepped_down, {}};  // proven too late
      st.extend(sent.steady + t_.proof_window());
      metrics_->proven(sent.wall);
      if (unanswered > 0) events_.post(text_.renewed_late(st.number, unanswered));
      unanswered = 0;
    }
  }

  LeaseStore& store_;
  const CampaignSpec& spec_;
  const std::string id_;  // the owner written to the store: spec.owner tagged (lease/holder_id.h)
  const Clock& clock_;
  std::stop_token stop_;
  std::function<void(Term&)>& work_;
  const Timing t_;
  const EventText text_;
  bool outage_ = false;
  SteadyTime outage_since_{};
  std::string told_holder_;  // the last same-named holder reported by owner_in_use
  bool told_exhausted_ = false;
  bool told_clock_ = false;
  LeaseChanges* const changes_;        // nullptr: the store hears of no changes; candidates poll
  lease_detail::MetricsFeed metrics_;  // spec.metrics, or a sink
  EventPump events_;                   // last: destroyed (drained) first, before what its events describe
};

}  // namespace

CampaignEnd campaign(LeaseStore& store, const CampaignSpec& spec, std::stop_token stop,
                     std::function<void(Term&)> work) {
  if (auto why = check_campaign_spec(spec)) throw std::invalid_argument(*why);
  if (!work) throw std::invalid_argument("campaign: no work given");
  Campaign loop(store, spec, std::move(stop), work);
  return loop.run();
}

}  // namespace forgemeter
