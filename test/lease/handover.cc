#include "lease/handover.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "forgemeter/campaign.h"
#include "support/eventually.h"

namespace forgemeter::testing {

using namespace std::chrono_literals;

// The holder campaigns on `a` until told to return; the successor, on `b`
// (through a Relay), takes over and returns at once.
std::optional<Handover> handover(LeaseStore& a, LeaseStore& b, const std::string& name, bool wake_ups, Duration ttl,
                                 Duration retry) {
  Relay successor_store(b, wake_ups);
  std::atomic<int> serving{0}, max_serving{0};
  auto enter = [&] {
    const int now = ++serving;
    int seen = max_serving.load();
    while (now > seen && !max_serving.compare_exchange_weak(seen, now)) {
    }
  };
  std::stop_source let_go, give_up;  // give_up: a step did not happen; both campaigns end
  std::atomic<bool> holding{false};
  std::atomic<SteadyTime::rep> returned{0}, started{0};
  CampaignSpec hs{.name = name, .owner = "holder", .ttl = ttl, .retry = retry, .on_loss = OnLoss::stop};
  CampaignSpec ss{.name = name, .owner = "successor", .ttl = ttl, .retry = retry, .on_loss = OnLoss::stop};
  std::jthread holder([&] {
    campaign(a, hs, give_up.get_token(), [&](Term&) {
      enter();
      holding = true;
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock lock(m);
      cv.wait(lock, let_go.get_token(), [] { return false; });
      --serving;
      returned = std::chrono::steady_clock::now().time_since_epoch().count();
    });
  });
  auto failed = [&] {
    give_up.request_stop();
    let_go.request_stop();
    return std::nullopt;
  };
  if (!fmtest::eventually([&] { return holding.load(); }, 20s)) return failed();
  std::jthread successor([&] {
    campaign(successor_store, ss, give_up.get_token(), [&](Term&) {
      started = std::chrono::steady_clock::now().time_since_epoch().count();
      enter();
      --serving;
    });
  });
  if (!fmtest::eventually([&] { return successor_store.refused.load() > 0; }, 20s)) return failed();
  let_go.request_stop();
  holder.join();
  if (!fmtest::eventually([&] { return started.load() != 0; }, 20s)) return failed();
  successor.join();
  return Handover{Duration(started.load() - returned.load()), max_serving.load()};
}

std::optional<Handover> resign_handover(LeaseStore& a, LeaseStore& b, LeaseStore& op, const std::string& name) {
  Relay successor_store(b, true);
  std::atomic<int> serving{0}, max_serving{0};
  auto enter = [&] {
    const int now = ++serving;
    int seen = max_serving.load();
    while (now > seen && !max_serving.compare_exchange_weak(seen, now)) {
    }
  };
  std::stop_source give_up;  // ends both campaigns
  std::atomic<bool> holding{false};
  std::atomic<SteadyTime::rep> started{0};
  // Serves until the term's stop: the term is over (by the campaign's account)
  // before `serving` drops, so a successor counted while it is up overlapped.
  auto serve = [&](Term& term) {
    enter();
    std::mutex m;
    std::condition_variable_any cv;
    std::unique_lock lock(m);
    cv.wait(lock, term.stop_token(), [] { return false; });
    --serving;
  };
  CampaignSpec hs{.name = name, .owner = "holder", .ttl = 9s, .retry = 3s};
  CampaignSpec ss{.name = name, .owner = "successor", .ttl = 9s, .retry = 3s};
  std::jthread holder([&] {
    campaign(a, hs, give_up.get_token(), [&](Term& term) {
      holding = true;
      serve(term);
    });
  });
  if (!fmtest::eventually([&] { return holding.load(); }, 20s)) {
    give_up.request_stop();
    return std::nullopt;
  }
  std::jthread successor([&] {
    campaign(successor_store, ss, give_up.get_token(), [&](Term& term) {
      started = std::chrono::steady_clock::now().time_since_epoch().count();
      serve(term);
    });
  });
  std::optional<Handover> out;
  if (fmtest::eventually([&] { return successor_store.refused.load() > 0; }, 20s)) {
    const auto asked = std::chrono::steady_clock::now().time_since_epoch().count();
    if (op.resign(name, Deadline::after(system_clock(), 10s)).status == LeaseStatus::granted &&
        fmtest::eventually([&] { return started.load() != 0; }, 20s))
      out = Handover{Duration(started.load() - asked), max_serving.load()};
  }
  give_up.request_stop();
  return out;
}

}  // namespace forgemeter::testing
