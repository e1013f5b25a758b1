// Test helper for campaigns on a shared store (PostgreSQL, etcd) under server
// faults: the terms served, as each campaign's `work` saw its gate (intervals
// on one monotonic clock, steady_clock; `work` polls Term::valid() every
// millisecond), and a candidate = a store of its own + a RecordingStore + the
// campaign's thread.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "forgemeter/campaign.h"
#include "forgemeter/lease.h"
#include "support/pg_wait.h"
#include "support/recording_store.h"

namespace fmtest {

// A candidate's own store (its own connections), given the candidate's name.
using StoreMaker = std::function<std::unique_ptr<forgemeter::LeaseStore>(const std::string& owner)>;

using SteadyClock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct Span {
  std::string owner;
  std::uint64_t term = 0;
  SteadyClock::time_point start, last_valid;
};

// The terms served, as work saw its gate.
class Spans {
 public:
  std::function<void(forgemeter::Term&)> work_for(std::string owner) {
    return [this, owner](forgemeter::Term& term) {
      std::size_t i;
      {
        std::lock_guard lock(mu_);
        i = spans_.size();
        spans_.push_back({owner, term.number(), SteadyClock::now(), SteadyClock::now()});
      }
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock wait_lock(m);
      auto token = term.stop_token();
      while (!token.stop_requested() && term.valid()) {
        {
          std::lock_guard lock(mu_);
          spans_[i].last_valid = SteadyClock::now();
        }
        cv.wait_for(wait_lock, token, 1ms, [] { return false; });
      }
    };
  }
  std::vector<Span> all() const {
    std::lock_guard lock(mu_);
    auto s = spans_;
    std::sort(s.begin(), s.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
    return s;
  }
  bool started_after(SteadyClock::time_point t) const {
    for (const auto& s : all())
      if (s.start > t) return true;
    return false;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Span> spans_;
};

struct Candidate {
  Candidate(const StoreMaker& make, std::string who) : owner(std::move(who)), store(make(owner)), recorder(*store) {}
  void start(const forgemeter::CampaignSpec& base, Spans& spans) {
    auto spec = base;
    spec.owner = owner;
    thread = std::thread(
        [this, spec, &spans] { forgemeter::campaign(recorder, spec, stop.get_token(), spans.work_for(owner)); });
  }
  void finish() {
    stop.request_stop();
    if (thread.joinable()) thread.join();
  }
  std::string owner;
  std::unique_ptr<forgemeter::LeaseStore> store;
  RecordingStore recorder;
  std::stop_source stop;
  std::thread thread;
};

inline void check_no_overlap(const std::vector<Span>& spans) {
  for (std::size_t i = 0; i + 1 < spans.size(); ++i) {
    CAPTURE(spans[i].owner);
    CAPTURE(spans[i + 1].owner);
    CHECK(spans[i].last_valid <= spans[i + 1].start);
    // A change of hands raises the term; the same owner re-taking its own
    // expired lease (nobody took it) keeps it, as the contract says.
    if (spans[i].owner != spans[i + 1].owner)
      CHECK(spans[i].term < spans[i + 1].term);
    else
      CHECK(spans[i].term <= spans[i + 1].term);
  }
}

inline double ms(SteadyClock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// Three candidates campaigning for `spec.name`, each on a store `make` gives
// it, started and run until the first holder is mid-term (two granted
// renewals).
struct MidTerm {
  MidTerm(const StoreMaker& make, const forgemeter::CampaignSpec& spec) {
    for (int i = 0; i < 3; ++i) cands.push_back(std::make_unique<Candidate>(make, "cand-" + std::to_string(i)));
    for (auto& c : cands) c->start(spec, spans);
    REQUIRE(fmtest::eventually([&] { return !spans.all().empty(); }));
    holder = spans.all().front().owner;
    for (auto& c : cands)
      if (c->owner == holder) h = c.get();
    REQUIRE(h);
    auto renewals = [&] {
      int n = 0;
      for (const auto& call : h->recorder.calls())
        n += call.op == "renew" && call.status == forgemeter::LeaseStatus::granted;
      return n;
    };
    REQUIRE(fmtest::eventually([&] { return renewals() >= 2; }));
  }
  // The send instant of the holder's last granted renew or acquire.
  SteadyClock::time_point last_proven() const {
    SteadyClock::time_point t{};
    for (const auto& call : h->recorder.calls())
      if (call.status == forgemeter::LeaseStatus::granted && (call.op == "renew" || call.op == "acquire"))
        t = std::max(t, call.sent);
    return t;
  }
  ~MidTerm() { finish(); }
  MidTerm(const MidTerm&) = delete;
  MidTerm& operator=(const MidTerm&) = delete;
  void finish() {
    for (auto& c : cands) c->finish();
  }

  Spans spans;
  std::vector<std::unique_ptr<Candidate>> cands;
  std::string holder;
  Candidate* h = nullptr;
};

}  // namespace fmtest
