#include "lease/candidate.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "forgemeter/testing/manual_clock.h"

namespace forgemeter::testing {

void Ledger::begin(TermRecord r) {
  std::lock_guard lock(mu_);
  terms_.push_back(std::move(r));
  max_serving_ = std::max(max_serving_, ++serving_);
}

void Ledger::end(const std::string& owner, SteadyTime at) {
  std::lock_guard lock(mu_);
  for (auto it = terms_.rbegin(); it != terms_.rend(); ++it)
    if (it->owner == owner && it->ended == SteadyTime{}) {
      it->ended = at;
      --serving_;
      return;
    }
}

std::vector<TermRecord> Ledger::terms() const {
  std::lock_guard lock(mu_);
  return terms_;
}

int Ledger::max_serving() const {
  std::lock_guard lock(mu_);
  return max_serving_;
}

Candidate::Candidate(std::string owner, std::shared_ptr<LeaseStore> shared, Clock& clock, CampaignSpec base,
                     Ledger* ledger)
    : store_(std::make_shared<FaultyStore>(std::move(shared))), spec_(std::move(base)), clock_(clock), ledger_(ledger) {
  spec_.owner = std::move(owner);
  if (!spec_.clock) spec_.clock = &clock_;  // a spec's own clock reads clock_ with an offset (clock-offset test)
  spec_.on_event = [this](const LeaseEvent& e) {
    if (before_event_) before_event_(e);
    {
      std::lock_guard lock(mu_);
      events_.push_back(e);
    }
    cv_.notify_all();
  };
  store_->harness_hooks([this](Op) { unhold_clock(); },
                        [this](const CallRecord& c) {
                          if (c.op == Op::acquire && c.status == LeaseStatus::granted) hold_clock();
                        });
}

void Candidate::hold_clock() {
  if (auto* sim = dynamic_cast<ManualClock*>(&clock_); sim && !holding_.exchange(true)) sim->hold();
}

void Candidate::unhold_clock() {
  if (auto* sim = dynamic_cast<ManualClock*>(&clock_); sim && holding_.exchange(false)) sim->unhold();
}

Candidate::~Candidate() {
  stop();
  unhold_clock();
  store_->heal();
  store_->unblock();
  auto* sim = dynamic_cast<ManualClock*>(&clock_);
  for (int i = 0; sim && thread_.joinable() && i < 100'000 && !await_finished(std::chrono::milliseconds(1)); ++i)
    sim->advance(
        std::max<Duration>(std::chrono::seconds(1), sim->next_parked_in()));  // a call's bound may be days away
  join();
}

void Candidate::start(Work work, WorkTime time) {
  if (!work)
    work = [this](Term& t) { default_work(t); };
  else if (time == WorkTime::waits)
    work = [this, given = std::move(work)](Term& t) {
      unhold_clock();
      given(t);
    };
  thread_ = std::thread([this, work = std::move(work)] {
    std::optional<CampaignEnd> end;
    std::exception_ptr error;
    try {
      end = campaign(*store_, spec_, stop_.get_token(), work);
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard lock(mu_);
      end_ = end;
      error_ = error;
      finished_ = true;
    }
    cv_.notify_all();
  });
}

void Candidate::join() {
  if (thread_.joinable()) thread_.join();
}

bool Candidate::await_finished(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return finished_.load(); });
}

void Candidate::default_work(Term& term) {
  TermRecord r{spec_.owner, term.number(), clock_.steady_now(), {}, term.valid()};
  if (ledger_) ledger_->begin(r);
  {
    std::lock_guard lock(mu_);
    terms_.push_back(r);
    gates_.push_back(term);
  }
  cv_.notify_all();
  {
    std::mutex m;
    std::condition_variable cv;
    bool over = false;
    // Runs on the thread that ends the term (the campaign's), at that instant.
    // This thread waits for it to have run, not merely for the stop: a
    // stop_callback destroyed before request_stop() gets to it never runs, and
    // request_stop() may first run the callback that wakes a wait on the token.
    std::stop_callback on_end(term.stop_token(), [&] {
      const SteadyTime at = clock_.steady_now();
      {
        std::lock_guard lock(mu_);
        terms_.back().ended = at;
      }
      if (ledger_) ledger_->end(spec_.owner, at);
      std::lock_guard lock(m);
      over = true;
      cv.notify_all();
    });
    // Only now may the clock step: a term ended before on_end was registered
    // would be recorded late, when this thread got to it.
    unhold_clock();
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return over; });
  }
}

std::optional<CampaignEnd> Candidate::end() const {
  std::lock_guard lock(mu_);
  return end_;
}

std::exception_ptr Candidate::error() const {
  std::lock_guard lock(mu_);
  return error_;
}

std::vector<LeaseEvent> Candidate::events() const {
  std::lock_guard lock(mu_);
  return events_;
}

std::size_t Candidate::count(LeaseEvent::Kind k) const {
  std::lock_guard lock(mu_);
  return static_cast<std::size_t>(std::count_if(events_.begin(), events_.end(), [&](auto& e) { return e.kind == k; }));
}

std::vector<std::string> Candidate::texts(LeaseEvent::Kind k) const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& e : events_)
    if (e.kind == k) out.push_back(e.text);
  return out;
}

bool Candidate::await_events(LeaseEvent::Kind k, std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] {
    return static_cast<std::size_t>(
               std::count_if(events_.begin(), events_.end(), [&](auto& e) { return e.kind == k; })) >= n;
  });
}

std::vector<TermRecord> Candidate::terms() const {
  std::lock_guard lock(mu_);
  return terms_;
}

bool Candidate::await_terms(std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return terms_.size() >= n; });
}

std::size_t Candidate::serving_terms() const {
  std::lock_guard lock(mu_);
  return static_cast<std::size_t>(
      std::count_if(terms_.begin(), terms_.end(), [](auto& t) { return t.ended == SteadyTime{}; }));
}

std::optional<Term> Candidate::gate(std::size_t i) const {
  std::lock_guard lock(mu_);
  if (i >= gates_.size()) return std::nullopt;
  return gates_[i];
}

}  // namespace forgemeter::testing
