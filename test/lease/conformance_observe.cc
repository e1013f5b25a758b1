// The conformance row for observe() (forgemeter/observe.h) on a store: a
// watcher on one handle sees, in order, what another handle does to the
// lease — an acquire, a release, a handover to another owner, a held lease
// passing its expiry — and not a renewal. Its poll is 10 s, so each report
// within 5 s came from the store's wake-up (or, for the expiry, its timer).
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "forgemeter/observe.h"
#include "lease/conformance_rows.h"

namespace forgemeter::conformance {
namespace {

using namespace std::chrono_literals;
using H = LeaseState::Status;

class Seen {
 public:
  void add(const LeaseState& s) {
    std::lock_guard lock(mu_);
    states_.push_back(s);
    cv_.notify_all();
  }
  bool await(std::size_t n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 5s, [&] { return states_.size() >= n; });
  }
  std::vector<LeaseState> states() {
    std::lock_guard lock(mu_);
    return states_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<LeaseState> states_;
};

}  // namespace

void observer_sees_each_change_in_order(StoreFactory& f) {
  auto s = f.fresh();
  auto w = f.peer(s);
  Seen seen;
  std::stop_source stop;
  std::jthread watcher([&] {
    observe(*w, {.name = "watched", .poll = 10s}, stop.get_token(), [&](const LeaseState& st) { seen.add(st); });
  });
  REQUIRE(seen.await(1));  // the state first: never taken
  const WallTime now = system_clock().now();
  REQUIRE(s->acquire("watched", "a", now, 60s, ok()).status == LeaseStatus::granted);
  REQUIRE(seen.await(2));
  REQUIRE(s->renew("watched", "a", now + 1s, 60s, ok()).status == LeaseStatus::granted);  // not a change
  REQUIRE(s->release("watched", "a", ok()).status == LeaseStatus::released);
  REQUIRE(seen.await(3));
  REQUIRE(s->acquire("watched", "b", now, 60s, ok()).status == LeaseStatus::granted);  // the handover
  REQUIRE(seen.await(4));
  REQUIRE(s->release("watched", "b", ok()).status == LeaseStatus::released);
  REQUIRE(seen.await(5));
  REQUIRE(s->acquire("watched", "c", system_clock().now(), 300ms, ok()).status == LeaseStatus::granted);
  REQUIRE(seen.await(7));  // held, then held past its expiry (nobody renews)
  stop.request_stop();
  watcher.join();
  const auto got = seen.states();
  REQUIRE(got.size() == 7);
  CHECK((got[0].status == H::free && got[0].term == 0u));
  CHECK((got[1].status == H::held && got[1].holder == "a" && got[1].term == 1u));
  CHECK((got[2].status == H::free && got[2].term == 1u));
  CHECK((got[3].status == H::held && got[3].holder == "b" && got[3].term == 2u));
  CHECK((got[4].status == H::free && got[4].term == 2u));
  CHECK((got[5].status == H::held && got[5].holder == "c" && got[5].term == 3u));
  CHECK((got[6].status == H::held && got[6].holder == "c" && got[6].term == 3u));
  CHECK(got[6].expiry <= lease_stamp(system_clock().now()));
}

}  // namespace forgemeter::conformance
