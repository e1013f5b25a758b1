#include "lease/exclusion.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "forgemeter/campaign.h"
#include "lease/transition.h"
#include "support/eventually.h"

namespace fmtest {
namespace {

using namespace std::chrono_literals;
using forgemeter::LeaseEvent;

forgemeter::Deadline within(forgemeter::Duration d) {
  return forgemeter::Deadline::after(forgemeter::system_clock(), d);
}

// One campaign on its own thread, counting its terms and the campaigns
// serving at once (shared by the campaigns of one test).
struct Runner {
  Runner(forgemeter::LeaseStore& store, const std::string& name, std::atomic<int>& serving, std::atomic<int>& most)
      : serving_(serving), most_(most) {
    spec.name = name;
    spec.owner = "web-1";
    spec.ttl = 3s;
    spec.on_event = [this](const LeaseEvent& e) {
      std::lock_guard lock(mu);
      events.push_back(e);
    };
    thread = std::jthread([this, &store](std::stop_token stop) {
      forgemeter::campaign(store, spec, stop, [this](forgemeter::Term& term) {
        const int now = ++serving_;
        int seen = most_.load();
        while (now > seen && !most_.compare_exchange_weak(seen, now)) {
        }
        ++terms;
        while (term.valid()) std::this_thread::sleep_for(5ms);  // work: until the term ends
        --serving_;
      });
    });
  }
  std::size_t count(LeaseEvent::Kind k) {
    std::lock_guard lock(mu);
    std::size_t n = 0;
    for (const auto& e : events) n += e.kind == k;
    return n;
  }
  std::vector<std::string> texts(LeaseEvent::Kind k) {
    std::lock_guard lock(mu);
    std::vector<std::string> out;
    for (const auto& e : events)
      if (e.kind == k) out.push_back(e.text);
    return out;
  }

  forgemeter::CampaignSpec spec;
  std::atomic<int>& serving_;
  std::atomic<int>& most_;
  std::atomic<int> terms{0};
  std::mutex mu;
  std::vector<LeaseEvent> events;
  std::jthread thread;  // last: joined first
};

}  // namespace

void same_owner_is_refused(forgemeter::LeaseStore& a, forgemeter::LeaseStore& b, const std::string& name) {
  std::atomic<int> serving{0}, most{0};
  auto first = std::make_unique<Runner>(a, name, serving, most);
  REQUIRE(eventually([&] { return first->terms.load() == 1; }, 10s));
  const auto held = a.inspect(name, within(10s));
  REQUIRE(held.status == forgemeter::LeaseState::Status::held);
  CHECK(forgemeter::holder_name(held.holder) == "web-1");
  CHECK(held.holder != "web-1");  // tagged

  Runner second(b, name, serving, most);
  REQUIRE(eventually([&] { return second.count(LeaseEvent::Kind::owner_in_use) > 0; }, 10s));
  std::this_thread::sleep_for(2500ms);  // more than two retries: the refusal holds
  CHECK(second.terms.load() == 0);
  CHECK(most.load() == 1);
  CHECK(second.count(LeaseEvent::Kind::owner_in_use) == 1);  // told once
  const auto told = second.texts(LeaseEvent::Kind::owner_in_use);
  REQUIRE(told.size() == 1);
  CHECK(told[0].find("owner \"web-1\" is already in use by another campaign (" + held.holder + " holds term") !=
        std::string::npos);

  first.reset();  // stops, releases: the second takes over
  // At its wake-up or its next retry (1 s). 10 s, liveness only: on a loaded
  // machine the release, the wake-up and the acquire each wait for a core;
  // that no two serve at once is `most`, below, not this bound.
  REQUIRE(eventually([&] { return second.terms.load() == 1; }, 10s));
  const auto now = b.inspect(name, within(10s));
  CHECK(forgemeter::holder_name(now.holder) == "web-1");
  CHECK(now.holder != held.holder);
  CHECK(now.term == held.term + 1);
  CHECK(most.load() == 1);
}

void term_cannot_increase(forgemeter::LeaseStore& store, const std::string& name, std::uint64_t largest) {
  const forgemeter::WallTime past = forgemeter::system_clock().now() - 10s;
  forgemeter::LeaseResult r = store.acquire(name, "new", past, 1s, within(10s));
  // PostgreSQL, with only the terms record written: the first call quarantines
  // the name until the recorded TTL has passed (nobody holds it, no error).
  if (r.status == forgemeter::LeaseStatus::refused && r.holder.empty() && r.error.empty())
    r = store.acquire(name, "new", forgemeter::WallTime(r.expiry), 1s, within(10s));
  CHECK(r.status == forgemeter::LeaseStatus::refused);
  CHECK(r.term == largest);
  CHECK(r.error == forgemeter::lease_detail::term_exhausted_error(largest));
  CHECK(store.inspect(name, within(10s)).term == largest);  // kept, never wrapped

  std::atomic<int> serving{0}, most{0};
  {
    Runner c(store, name, serving, most);
    REQUIRE(eventually([&] { return c.count(LeaseEvent::Kind::term_exhausted) > 0; }, 10s));
    std::this_thread::sleep_for(1500ms);  // more than a retry: polled again, told once
    CHECK(c.count(LeaseEvent::Kind::term_exhausted) == 1);
    CHECK(c.terms.load() == 0);
    CHECK(c.count(LeaseEvent::Kind::store_unreachable) == 0);
  }
  CHECK(store.inspect(name, within(10s)).term == largest);
}

}  // namespace fmtest
