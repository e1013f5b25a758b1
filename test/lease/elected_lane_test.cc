// Elected lanes on the loopback forge: two replicas (two Meters, two
// Transports, one shared MemoryStore) run the same lane's loop; the forge
// counts what one replica alone would send, and a deposed replica's late
// requests are refused, not sent. Real clock; margins beside each TTL.
#include <doctest/doctest.h>

#include <regex>
#include <thread>

#include "forgemeter/elected_lane.h"
#include "forgemeter/memory_store.h"
#include "lease/faulty_store.h"
#include "testforge/forge.h"

namespace forgemeter::testing {
namespace {

using namespace std::chrono_literals;
namespace tf = testforge;

const Lane kLane{"merge-gate-sweeper"};
constexpr int kPerPass = 2;  // requests per pass of the loop

struct Pass {
  SteadyTime first_sent{}, last_sent{};  // when perform() began for the pass's first / last sent request
  int sent = 0, refused = 0;
};

// One replica: its own Meter and Transport, its own FaultyStore onto the shared store.
class Replica {
 public:
  Replica(std::string owner, tf::Forge& forge, std::shared_ptr<LeaseStore> shared, CampaignSpec spec)
      : store_(std::move(shared)),
        meter_({.sink = [this](std::string_view l) { keep(l); }}),
        transport_({.meter = &meter_, .resolve = forge.resolve(), .lane_header = std::string(tf::kLaneHeader)}),
        url_(forge.url("api.forge.test", "/repos/o/r/pulls/1")) {
    spec.owner = std::move(owner);
    spec_ = std::move(spec);
  }
  ~Replica() {
    stop();
    store_.heal();
    if (thread_.joinable()) thread_.join();
  }

  void start(Duration interval) {
    thread_ = std::thread([this, interval] {
      try {
        elect(transport_, kLane, store_, spec_, stop_.get_token(), [&](Term& term) { loop(term, interval); });
      } catch (...) {
        FAIL_CHECK("elect threw");
      }
    });
  }
  void stop() { stop_.request_stop(); }
  void join() { thread_.join(); }

  FaultyStore& store() { return store_; }
  Transport& transport() { return transport_; }
  std::vector<Pass> passes() const {
    std::lock_guard lock(mu_);
    return passes_;
  }
  std::vector<TransportErrc> late() const {
    std::lock_guard lock(mu_);
    return late_;
  }
  bool await_passes(std::size_t n, std::chrono::milliseconds timeout = 20s) const {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return passes_.size() >= n; });
  }
  bool await_late(std::size_t n, std::chrono::milliseconds timeout = 20s) const {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return late_.size() >= n; });
  }
  int sent() const {
    int n = 0;
    for (const auto& p : passes()) n += p.sent;
    return n;
  }
  // refused=<n> summed over the Meter's answers lines (after flush).
  std::uint64_t refused_on_lines() {
    meter_.flush();
    std::lock_guard lock(mu_);
    std::uint64_t n = 0;
    static const std::regex refused(" refused=([0-9]+)");
    for (const auto& l : lines_)
      for (std::sregex_iterator it(l.begin(), l.end(), refused), end; it != end; ++it) n += std::stoull((*it)[1]);
    return n;
  }

 private:
  void keep(std::string_view line) {
    std::lock_guard lock(mu_);
    lines_.emplace_back(line);
  }
  // The lane's loop: a pass of kPerPass requests every `interval` while the
  // term lasts; then, like a loop slow to notice, kPerPass late requests.
  void loop(Term& term, Duration interval) {
    const auto token = term.stop_token();
    while (!token.stop_requested()) {
      Pass p;
      for (int i = 0; i < kPerPass; ++i) {
        const SteadyTime began = std::chrono::steady_clock::now();  // before the gate is asked
        const auto res = transport_.perform({.url = url_});         // tagged by elect()'s LaneScope
        if (res.error.code == TransportErrc::lane_refused) {
          ++p.refused;
          continue;
        }
        if (p.sent++ == 0) p.first_sent = began;
        p.last_sent = began;
      }
      {
        std::lock_guard lock(mu_);
        passes_.push_back(p);
      }
      cv_.notify_all();
      system_clock().wait_until(std::chrono::steady_clock::now() + interval, token);
    }
    for (int i = 0; i < kPerPass; ++i) {
      const auto code = transport_.perform({.url = url_}).error.code;
      {
        std::lock_guard lock(mu_);
        late_.push_back(code);
      }
      cv_.notify_all();
    }
  }

  FaultyStore store_;
  CampaignSpec spec_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::vector<std::string> lines_;
  std::vector<Pass> passes_;
  std::vector<TransportErrc> late_;
  Meter meter_;
  Transport transport_;
  std::string url_;
  std::stop_source stop_;
  std::thread thread_;
};

CampaignSpec spec(Duration ttl, Duration retry) {
  CampaignSpec s;
  s.ttl = ttl;
  s.retry = retry;
  return s;
}

}  // namespace

TEST_CASE(
    "elected lane: two replicas, the forge counts one replica's passes; the deposed one's late requests are refused") {
  // TTL 900 ms: renewals every 300 ms, a holder whose store dies steps down
  // 750 ms after its last proven renewal was sent, 150 ms before the lease
  // expires in the store; the successor can take it only after that expiry.
  // Passes every 30 ms.
  tf::Forge forge;
  auto shared = std::make_shared<MemoryStore>();
  Replica a("replica-a", forge, shared, spec(900ms, 50ms));
  Replica b("replica-b", forge, shared, spec(900ms, 50ms));
  a.start(30ms);
  REQUIRE(a.await_passes(1));
  b.start(30ms);
  REQUIRE(b.store().await_count(Op::acquire, LeaseStatus::refused, 3));  // b campaigns in vain meanwhile
  REQUIRE(a.await_passes(10));

  a.store().set_all({Fault::hang});  // a's store link dies: a is deposed by its own deadline
  REQUIRE(a.await_late(kPerPass));
  REQUIRE(b.await_passes(10));
  b.stop();
  b.join();
  a.stop();
  a.join();

  // What the forge received in the lane is exactly what the replicas sent.
  const auto by_lane = forge.truth().by_lane();
  const std::uint64_t forge_count =
      by_lane.count(std::string(kLane.name())) ? by_lane.at(std::string(kLane.name())) : 0;
  CHECK(forge_count == static_cast<std::uint64_t>(a.sent() + b.sent()));
  // One replica at a time: every request a sent was sent before any b sent
  // (a's gate closed at its step-down, b's term began after the expiry).
  SteadyTime a_last{}, b_first = SteadyTime::max();
  for (const auto& p : a.passes())
    if (p.sent > 0) a_last = std::max(a_last, p.last_sent);
  for (const auto& p : b.passes())
    if (p.sent > 0) b_first = std::min(b_first, p.first_sent);
  CHECK(a_last < b_first);
  // One replica's worth: full passes only, but for the one a term's end may
  // cut short (a's at the hand-over, b's at its stop).
  for (const auto* r : {&a, &b}) {
    int partial = 0;
    for (const auto& p : r->passes()) partial += (p.sent != kPerPass);
    CHECK(partial <= 1);
  }
  // The deposed replica's late requests: refused before sending, counted as refused.
  for (TransportErrc code : a.late()) CHECK(code == TransportErrc::lane_refused);
  for (TransportErrc code : b.late()) CHECK(code == TransportErrc::lane_refused);
  int a_refused = static_cast<int>(a.late().size());
  for (const auto& p : a.passes()) a_refused += p.refused;
  CHECK(a.refused_on_lines() == static_cast<std::uint64_t>(a_refused));
  MESSAGE("forge count " << forge_count << " = a " << a.sent() << " + b " << b.sent() << "; a's refused " << a_refused
                         << ", a passes " << a.passes().size() << ", b passes " << b.passes().size());
}

TEST_CASE("elected lane: refused before the first term and after elect() returns; served during the term") {
  // TTL 3 s: the term is valid throughout the few requests sent while it lasts.
  tf::Forge forge;
  auto shared = std::make_shared<MemoryStore>();
  Replica a("replica-a", forge, shared, spec(3s, 50ms));
  a.store().set_all({Fault::unreachable});
  a.start(1h);                                                             // one pass per term
  REQUIRE(a.store().await_count(Op::acquire, LeaseStatus::no_answer, 1));  // gated before the first attempt
  const std::string url = forge.url("api.forge.test", "/echo");
  CHECK(a.transport().perform({.url = url, .lane = kLane}).error.code == TransportErrc::lane_refused);
  CHECK(a.transport().perform({.url = url}).ok());  // other lanes are not gated
  a.store().heal();
  REQUIRE(a.await_passes(1));
  CHECK(a.passes()[0].sent == kPerPass);
  CHECK(a.transport().perform({.url = url, .lane = kLane}).ok());  // any thread, while the term is valid
  a.stop();
  a.join();
  CHECK(a.transport().perform({.url = url, .lane = kLane}).error.code == TransportErrc::lane_refused);
  CHECK(forge.truth().by_lane().at(std::string(kLane.name())) == kPerPass + 1);
}

TEST_CASE("elected lane: misuse is rejected before the lane is gated") {
  tf::Forge forge;
  Meter meter({.sink = [](std::string_view) {}});
  Transport transport({.meter = &meter, .resolve = forge.resolve()});
  MemoryStore store;
  std::stop_source stop;
  auto work = [](Term&) {};
  CampaignSpec ok = spec(3s, 1s);
  ok.owner = "replica-a";
  CampaignSpec named = ok;
  named.name = "another-lease";
  CampaignSpec bad = ok;
  bad.ttl = 1ms;
  CHECK_THROWS_AS(elect(transport, Lane::other(), store, ok, stop.get_token(), work), std::invalid_argument);
  CHECK_THROWS_AS(elect(transport, kLane, store, named, stop.get_token(), work), std::invalid_argument);
  CHECK_THROWS_AS(elect(transport, kLane, store, bad, stop.get_token(), work), std::invalid_argument);
  CHECK_THROWS_AS(elect(transport, kLane, store, ok, stop.get_token(), {}), std::invalid_argument);
  CHECK(transport.perform({.url = forge.url("api.forge.test", "/echo"), .lane = kLane}).ok());
  CHECK(store.size() == 0);
}

}  // namespace forgemeter::testing
