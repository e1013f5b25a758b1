// test/lease/candidate.h — one campaigning replica for the campaign tests.
//
// A Candidate runs forgemeter::campaign() on a thread of its own against its own
// FaultyStore (wrapping a store shared with the other candidates), records
// every event, and serves each term with a work function that waits for the
// term's stop token (not on the clock, so a ManualClock sees only the campaign
// thread park) and records the term's interval on the campaign's clock. A
// Ledger shared by candidates checks that no two terms are ever served at once.
// On a ManualClock, a granted acquire holds the clock until the term's work has
// begun and watches for the term's end (or the campaign calls the store again
// instead), so a step never runs ahead of a work thread the clock cannot see.
//
// Thread-safety: the accessors may be called from any thread while it runs.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "forgemeter/campaign.h"
#include "lease/faulty_store.h"

namespace forgemeter::testing {

struct TermRecord {
  std::string owner;
  std::uint64_t number = 0;
  SteadyTime began{}, ended{};  // ended: when the term's stop token fired
  bool valid_at_start = false;
};

// Terms of every candidate; checks "never two at once" as terms begin.
class Ledger {
 public:
  void begin(TermRecord r);
  void end(const std::string& owner, SteadyTime at);
  std::vector<TermRecord> terms() const;
  // Real-time wait until work has begun at least n terms (work starts on its
  // own thread, so a parked campaign does not mean its work has begun).
  bool await_terms(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(20)) const;
  int max_serving() const;

 private:
  mutable std::mutex mu_;
  std::vector<TermRecord> terms_;
  std::vector<Term> gates_;
  int serving_ = 0, max_serving_ = 0;
};

class Candidate {
 public:
  using Work = std::function<void(Term&)>;

  Candidate(std::string owner, std::shared_ptr<LeaseStore> shared, Clock& clock, CampaignSpec base,
            Ledger* ledger = nullptr);
  // Requests stop, heals and unblocks the store, and joins (stepping a
  // ManualClock while a call of the store still waits on it).
  ~Candidate();

  // Called on the event thread before an event is recorded; set before start().
  void before_event(std::function<void(const LeaseEvent&)> f) { before_event_ = std::move(f); }

  // Starts campaign(); `work` replaces the default (wait for the stop token).
  // `instant` work returns without waiting on anything: the grant's hold on a
  // ManualClock then lasts until the campaign calls the store after it (its
  // release), so no step can come between the work's return and the campaign
  // seeing it.
  enum class WorkTime : bool { waits, instant };
  void start(Work work = {}, WorkTime time = WorkTime::waits);
  void stop() { stop_.request_stop(); }
  void join();
  bool finished() const { return finished_.load(); }
  // Real-time wait until campaign() returned.
  bool await_finished(std::chrono::milliseconds timeout = std::chrono::seconds(20)) const;

  FaultyStore& store() { return *store_; }
  const CampaignSpec& spec() const { return spec_; }
  std::optional<CampaignEnd> end() const;
  std::exception_ptr error() const;

  std::vector<LeaseEvent> events() const;
  std::size_t count(LeaseEvent::Kind k) const;
  std::vector<std::string> texts(LeaseEvent::Kind k) const;
  // Real-time wait until at least n events of kind k arrived.
  bool await_events(LeaseEvent::Kind k, std::size_t n,
                    std::chrono::milliseconds timeout = std::chrono::seconds(20)) const;
  std::vector<TermRecord> terms() const;
  // Real-time wait until work has begun at least n terms (work starts on its
  // own thread, so a parked campaign does not mean its work has begun).
  bool await_terms(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(20)) const;
  std::size_t serving_terms() const;  // terms begun whose stop token has not fired
  // The gate the default work was handed for its i-th term (from 0).
  std::optional<Term> gate(std::size_t i) const;

 private:
  void default_work(Term& term);
  void hold_clock();  // a term's work is about to start
  void unhold_clock();

  std::shared_ptr<FaultyStore> store_;
  CampaignSpec spec_;
  Clock& clock_;
  Ledger* ledger_;
  std::function<void(const LeaseEvent&)> before_event_;
  std::stop_source stop_;
  std::atomic<bool> finished_{false};
  std::atomic<bool> holding_{false};
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::vector<LeaseEvent> events_;
  std::vector<TermRecord> terms_;
  std::vector<Term> gates_;
  std::optional<CampaignEnd> end_;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace forgemeter::testing
