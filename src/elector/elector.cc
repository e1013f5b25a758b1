// Elector (elector.h): campaigns, observers and the ticker of `lease serve`.
#include "elector/elector.h"

#include <stdexcept>

#include "forgemeter/observe.h"
#include "lease/lease_metrics_text.h"

namespace forgemeter::elector {

struct Elector::Lease {
  std::string name;
  LeaseMetrics metrics;
  std::unique_ptr<LeaseView> view;
  std::mutex mu;
  std::stop_source round;             // this campaign's; a resign ends it
  std::atomic<bool> resigned{false};  // by resign(): stay out one TTL
  std::atomic<bool> asked{false};     // by the store (lease resign): with exit_on_loss, stay out one TTL
  std::atomic<bool> lost{false};      // refused or stepped down
  std::jthread campaign, observer;
};

Elector::Elector(LeaseStore& store, ElectorOptions o)
    : store_(store), o_(std::move(o)), clock_(o_.clock != nullptr ? *o_.clock : system_clock()) {
  if (o_.names.empty()) throw std::invalid_argument("no lease to serve");
  if (o_.answer_validity <= Duration::zero()) throw std::invalid_argument("the answer validity must be positive");
  for (const std::string& name : o_.names) {
    auto l = std::make_unique<Lease>();
    l->name = name;
    if (auto why = check_campaign_spec(spec_for(*l))) throw std::invalid_argument(*why);
    l->view =
        std::make_unique<LeaseView>(LeaseViewOptions{name, o_.owner, o_.ttl, o_.answer_validity, &clock_, &l->metrics});
    leases_.push_back(std::move(l));
  }
}

Elector::~Elector() {
  stop();
  ticker_stop_.request_stop();
}

CampaignSpec Elector::spec_for(Lease& l) {
  CampaignSpec spec;
  spec.name = l.name;
  spec.owner = o_.owner;
  spec.ttl = o_.ttl;
  spec.retry = o_.retry;
  spec.serve_for = o_.serve_for;
  spec.clock = &clock_;
  spec.metrics = &l.metrics;
  spec.exit_now = exit_now_.get_token();
  spec.on_loss = o_.exit_on_loss ? OnLoss::stop : OnLoss::recampaign;
  spec.on_event = [this, &l](const LeaseEvent& e) {
    using K = LeaseEvent::Kind;
    if (e.kind == K::store_unreachable) l.view->store_reachable(false);
    if (e.kind == K::store_reachable) l.view->store_reachable(true);
    if (e.kind == K::released) l.view->released(e.term);
    if (e.kind == K::lost || e.kind == K::stepped_down) l.lost = true;
    if (e.kind == K::resigned) l.asked = true;
    if (o_.on_event) o_.on_event(e);
  };
  return spec;
}

void Elector::start() {
  for (auto& l : leases_) {
    l->campaign = std::jthread([this, &l = *l] { run_campaign(l); });
    l->observer = std::jthread([this, &l = *l] {
      const Duration poll = o_.retry.value_or(o_.ttl / 3);
      try {
        observe(store_, ObserveSpec{.name = l.name, .poll = poll, .clock = &clock_}, stop_.get_token(),
                [&l](const LeaseState& s) { l.view->observed(s); });
      } catch (const std::exception&) {  // only bad_alloc: the campaign still answers for this replica
      }
    });
  }
  ticker_ = std::jthread([this] { run_ticker(ticker_stop_.get_token()); });
}

// Campaigns until the stop; a resign ends a round, and the next begins one
// TTL later; with exit_on_loss, the first lost term ends it for good.
void Elector::run_campaign(Lease& l) {
  const std::stop_token stop = stop_.get_token();
  while (!stop.stop_requested()) {
    std::stop_source round;
    {
      std::lock_guard lock(l.mu);
      l.round = round;
    }
    std::stop_callback link(stop, [&round] { round.request_stop(); });
    CampaignEnd end = CampaignEnd::stopped;
    try {
      end = campaign(store_, spec_for(l), round.get_token(), [this, &l](Term& t) { serve_term(l, t); });
    } catch (const std::exception&) {  // the spec was checked; only bad_alloc
      return;
    }
    if (stop.stop_requested()) return;
    const bool stay_out = l.resigned.exchange(false) || (end == CampaignEnd::term_ended && l.asked.exchange(false));
    if (!stay_out && end == CampaignEnd::term_ended && l.lost.load()) {
      if (o_.on_loss) o_.on_loss(l.name);
      return;
    }
    if (stay_out) clock_.wait_until(clock_.steady_now() + o_.ttl, stop);
  }
}

// One term: leader until its end, then the promises waited out before the
// campaign may release.
void Elector::serve_term(Lease& l, Term& term) {
  l.view->elected(term);
  const std::stop_token ended = term.stop_token();
  while (!ended.stop_requested()) clock_.wait_until(clock_.steady_now() + std::chrono::hours(1), ended);
  const SteadyTime promised = l.view->step_down();
  if (o_.on_step_down) o_.on_step_down(l.name);
  clock_.wait_until(promised + kInFlight, exit_now_.get_token());
  l.view->left();
}

void Elector::run_ticker(const std::stop_token& stop) {
  while (!stop.stop_requested()) {
    const SteadyTime now = clock_.steady_now();
    SteadyTime next = now + o_.heartbeat;
    for (auto& l : leases_) next = std::min(next, l->view->tick(now, o_.heartbeat));
    std::unique_lock lock(tick_mu_);
    // The clock's wait for the instant, this condition for a new long poll.
    tick_cv_.wait_for(lock, stop, std::chrono::duration_cast<std::chrono::nanoseconds>(next - clock_.steady_now()),
                      [this] { return tick_soon_; });
    tick_soon_ = false;
  }
}

void Elector::stop() {
  if (stopped_.exchange(true)) return;
  stop_.request_stop();
  for (auto& l : leases_) {
    if (l->campaign.joinable()) l->campaign.join();
    if (l->observer.joinable()) l->observer.join();
  }
}

void Elector::exit_now() { exit_now_.request_stop(); }

LeaseView* Elector::view(std::string_view name) const {
  for (const auto& l : leases_)
    if (l->name == name) return l->view.get();
  return nullptr;
}

std::optional<std::uint64_t> Elector::resign(std::string_view name) {
  for (auto& l : leases_) {
    if (l->name != name) continue;
    const auto term = l->view->leading();
    if (!term) return std::nullopt;
    l->resigned = true;
    std::lock_guard lock(l->mu);
    l->round.request_stop();
    return term;
  }
  return std::nullopt;
}

void Elector::await_change(LeaseView& view, serve::Reply reply, SteadyTime arrived, SteadyTime until) {
  view.await_change(std::move(reply), arrived, until);
  std::lock_guard lock(tick_mu_);
  tick_soon_ = true;
  tick_cv_.notify_one();
}

void Elector::end_clients() {
  for (auto& l : leases_) l->view->end_clients();
}

std::optional<std::string> Elector::health() const {
  for (const auto& l : leases_)
    if (auto why = l->metrics.health()) return "lease \"" + l->name + "\": " + *why;
  return std::nullopt;
}

std::string Elector::prometheus() const {
  std::vector<LeaseFigures> leases;
  for (const auto& l : leases_) {
    leases.push_back(l->metrics.figures());
    leases.back().lease = l->name;  // also before its campaign first fed it
  }
  return lease_detail::prometheus_text(leases);
}

}  // namespace forgemeter::elector
