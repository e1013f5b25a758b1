#include "lease/handover.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "forgemeter/campaign.h"
#include "support/eventually.h"

namespace forgemeter::testing {
namespace {

using namespace std::chrono_literals;

// Forwards the four calls, counts refused acquires, and forwards the store's
// wake-ups only when `wake_ups` (else it waits out the deadline: suppressed).
class Relay final : public LeaseStore, public LeaseChanges {
 public:
  Relay(LeaseStore& inner, bool wake_ups)
      : inner_(inner), changes_(wake_ups ? dynamic_cast<LeaseChanges*>(&inner) : nullptr) {}
  LeaseResult acquire(std::string_view n, std::string_view o, WallTime now, Duration ttl, const Deadline& d) override {
    LeaseResult r = inner_.acquire(n, o, now, ttl, d);
    if (r.status == LeaseStatus::refused) ++refused;
    return r;
  }
  LeaseResult renew(std::string_view n, std::string_view o, WallTime now, Duration ttl, const Deadline& d) override {
    return inner_.renew(n, o, now, ttl, d);
  }
  LeaseResult release(std::string_view n, std::string_view o, const Deadline& d) override {
    return inner_.release(n, o, d);
  }
  LeaseState inspect(std::string_view n, const Deadline& d) override { return inner_.inspect(n, d); }
  std::uint64_t change_mark(std::string_view n) override { return changes_ ? changes_->change_mark(n) : 0; }
  bool wait_for_change(std::string_view n, std::uint64_t mark, const Deadline& d) override {
    if (changes_) return changes_->wait_for_change(n, mark, d);
    d.clock->wait_until(d.at, d.stop);
    return false;
  }
  std::atomic<int> refused{0};

 private:
  LeaseStore& inner_;
  LeaseChanges* const changes_;
};

}  // namespace

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

}  // namespace forgemeter::testing
