// ElectedLanes (elected_lanes.h): an elected lane's gate, its requests in
// flight, and the refusal naming who leads.
#include "cli/proxy/elected_lanes.h"

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace forgemeter::cli {
namespace {

// The term the request on this thread goes under (0: none). The forwarder
// performs a request on the thread that entered its pass, and the Transport
// asks the lane's gate on that same thread.
thread_local std::uint64_t t_term = 0;

// How long a step-down waits for cancelled requests to return.
constexpr Duration kCancelled = std::chrono::seconds(2);

}  // namespace

struct ElectedLanes::Elected {
  Elected(Lane l, elector::LeaseView* v) : lane(l), view(v) {}
  const Lane lane;
  elector::LeaseView* const view;
  std::mutex mu;
  std::condition_variable ended;
  std::size_t in_flight = 0;  // requests that went under a term of this replica's, not yet over
  std::stop_source cancel;    // theirs; replaced after each step-down
};

ElectedLanes::ElectedLanes(LeaseStore& store, Transport& transport, elector::ElectorOptions o, Duration drain_bound)
    : transport_(transport), drain_(drain_bound), retry_(o.retry.value_or(o.ttl / 3)) {
  o.on_step_down = [this](const std::string& name) { this->drain(name); };
  const std::vector<std::string> names = o.names;
  elector_ = std::make_unique<elector::Elector>(store, std::move(o));
  for (const std::string& name : names) {
    auto e = std::make_unique<Elected>(Lane(name), elector_->view(name));
    // Open only for a request that went under the term led now: a request
    // from an earlier term of this replica's never goes in a later one.
    transport_.gate_lane(e->lane, [view = e->view] { return t_term != 0 && view->leading() == t_term; });
    lanes_.push_back(std::move(e));
  }
}

ElectedLanes::~ElectedLanes() {
  stop();
  for (const auto& e : lanes_) transport_.ungate_lane(e->lane);
}

void ElectedLanes::start() { elector_->start(); }
void ElectedLanes::stop() { elector_->stop(); }
void ElectedLanes::exit_now() {
  exiting_ = true;
  for (const auto& e : lanes_) {
    std::lock_guard lock(e->mu);
    e->ended.notify_all();  // a drain under way stops waiting
  }
  elector_->exit_now();
}

ElectedLanes::Elected* ElectedLanes::find(Lane lane) const {
  for (const auto& e : lanes_)
    if (e->lane == lane) return e.get();
  return nullptr;
}

std::optional<proxy::FencePass> ElectedLanes::enter(Lane lane) {
  Elected* e = find(lane);
  if (e == nullptr) return std::nullopt;
  proxy::FencePass pass;
  {
    // Read under the lock a step-down's drain takes after the view stopped
    // saying leader: a request either counts before the drain looks, or
    // reads no term.
    std::lock_guard lock(e->mu);
    pass.term = e->view->leading().value_or(0);
    if (pass.term != 0) ++e->in_flight;
    pass.stop = e->cancel.get_token();
  }
  t_term = pass.term;
  const bool counted = pass.term != 0;
  pass.held = std::shared_ptr<void>(nullptr, [e, counted](void*) {
    t_term = 0;
    if (!counted) return;
    std::lock_guard lock(e->mu);
    if (--e->in_flight == 0) e->ended.notify_all();
  });
  return pass;
}

proxy::Refusal ElectedLanes::refused(Lane lane) {
  const Elected* e = find(lane);
  const elector::LeaseAnswer now = e->view->state();
  return proxy::lane_not_led(lane.name(), now.holder, now.term, std::chrono::ceil<std::chrono::seconds>(retry_));
}

// The view no longer says leader, so the gate is closed: the requests that
// went under the term end (or are cancelled) before the release.
void ElectedLanes::drain(const std::string& name) {
  Elected* e = find(Lane(name));
  if (e == nullptr) return;
  std::unique_lock lock(e->mu);
  const auto over = [this, e] { return e->in_flight == 0 || exiting_.load(); };
  if (!e->ended.wait_for(lock, drain_, over)) {
    e->cancel.request_stop();
    e->ended.wait_for(lock, kCancelled, over);
  }
  e->cancel = std::stop_source();
}

}  // namespace forgemeter::cli
