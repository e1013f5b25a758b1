// The examples of forgemeter/campaign.h, memory_store.h, postgres_store.h,
// etcd_store.h, elected_lane.h and observe.h, verbatim between the marks, so they stay
// code that compiles. All run offline: the memory store's in-process; the
// PostgreSQL and etcd ones are stopped before they campaign, and both stores
// connect lazily, so nothing reaches a server.
//
//   build/<dir>/examples/example_lease_headers
#include <forgemeter/campaign.h>
#include <forgemeter/elected_lane.h>
#include <forgemeter/etcd_store.h>
#include <forgemeter/memory_store.h>
#include <forgemeter/meter.h>
#include <forgemeter/observe.h>
#include <forgemeter/postgres_store.h>
#include <forgemeter/transport.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

using namespace std::chrono_literals;

// --- as in forgemeter/campaign.h (LeaseNames) ----------------------------------
inline const std::string_view kSweeperLease =
    forgemeter::LeaseNames::process().claim("merge-gate-sweeper");
// -------------------------------------------------------------------------------

namespace campaign {

std::stop_source stop_source;
std::uint64_t swept = 0;

// One sweep, then the process stops: campaign() stops the term's work and returns.
void sweep_once(std::uint64_t term) {
  swept = term;
  stop_source.request_stop();
}

bool example() {
  // --- as in forgemeter/campaign.h ---------------------------------------------
  forgemeter::MemoryStore store;
  forgemeter::CampaignSpec spec{.name = "merge-gate-sweeper",
                                .owner = forgemeter::make_owner_id(),
                                .ttl = std::chrono::minutes(3)};
  forgemeter::campaign(store, spec, stop_source.get_token(), [](forgemeter::Term& term) {
    while (!term.stop_token().stop_requested()) sweep_once(term.number());
  });
  // -----------------------------------------------------------------------------
  return swept == 1;
}

}  // namespace campaign

bool memory_store_h() {
  const std::string owner = forgemeter::make_owner_id();
  const forgemeter::Clock& clock = forgemeter::system_clock();

  // --- as in forgemeter/memory_store.h -----------------------------------------
  auto store = std::make_shared<forgemeter::MemoryStore>();
  auto r = store->acquire("merge-gate-sweeper", owner, clock.now(), 90s,
                          forgemeter::Deadline::after(clock, 30s));
  // -----------------------------------------------------------------------------
  return r.status == forgemeter::LeaseStatus::granted && r.term == 1;
}

// What the store examples campaign with: a spec, a stop already requested (so
// campaign() returns before it reaches the store) and work that records it ran.
struct Stopped {
  forgemeter::CampaignSpec spec{.name = "merge-gate-sweeper", .owner = "host-a", .ttl = 3min};
  std::stop_source source;
  bool served = false;
  Stopped() { source.request_stop(); }
  std::function<void(forgemeter::Term&)> work() {
    return [this](forgemeter::Term&) { served = true; };
  }
};

bool postgres_store_h() {
  Stopped s;
  const forgemeter::CampaignSpec& spec = s.spec;
  const std::stop_token stop = s.source.get_token();
  auto work = s.work();

  // --- as in forgemeter/postgres_store.h ---------------------------------------
  forgemeter::PostgresStore store({.conninfo = "host=db.internal dbname=app user=svc"});
  forgemeter::campaign(store, spec, stop, work);   // forgemeter/campaign.h
  // -----------------------------------------------------------------------------
  return !s.served;
}

bool etcd_store_h() {
  Stopped s;
  const forgemeter::CampaignSpec& spec = s.spec;
  const std::stop_token stop = s.source.get_token();
  auto work = s.work();

  // --- as in forgemeter/etcd_store.h -------------------------------------------
  auto options = forgemeter::EtcdStoreOptions::from_uri("etcd://10.0.0.1:2379,10.0.0.2:2379/forgemeter/leases");
  forgemeter::EtcdStore store(options);
  forgemeter::campaign(store, spec, stop, work);   // forgemeter/campaign.h
  // -----------------------------------------------------------------------------
  return !s.served && options.endpoints.size() == 2;
}

namespace elected {

std::stop_source stop_source;
int sweeps = 0;

void sweep_once(forgemeter::Transport&) { ++sweeps; }

bool example() {
  forgemeter::Meter meter({.sink = [](std::string_view line) { std::printf("%.*s\n", int(line.size()), line.data()); }});
  stop_source.request_stop();  // stopped before it campaigns: the lane is gated, no term is served

  // --- as in forgemeter/elected_lane.h -----------------------------------------
  forgemeter::Transport transport({.meter = &meter});
  forgemeter::PostgresStore store({.conninfo = "postgresql://app@db/app"});
  forgemeter::elect(transport, forgemeter::Lane{"merge-gate-sweeper"}, store,
                    {.owner = forgemeter::make_owner_id(), .ttl = std::chrono::minutes(3)},
                    stop_source.get_token(), [&](forgemeter::Term& term) {
                      while (!term.stop_token().stop_requested()) sweep_once(transport);
                    });
  // -----------------------------------------------------------------------------
  forgemeter::Response late = transport.perform(
      {.url = "https://api.github.com/repos/o/r/pulls/7", .lane = forgemeter::Lane{"merge-gate-sweeper"}});
  return sweeps == 0 && late.error.code == forgemeter::TransportErrc::lane_refused;
}

}  // namespace elected

namespace observing {

std::stop_source stop;
int reported = 0;
void log_holder(const std::string&, std::uint64_t) {  // the first state is reported at once: enough here
  ++reported;
  stop.request_stop();
}

bool example() {
  forgemeter::MemoryStore store;
  // --- as in forgemeter/observe.h ----------------------------------------------
  forgemeter::observe(store, {.name = "merge-gate-sweeper"}, stop.get_token(),
                      [](const forgemeter::LeaseState& s) { log_holder(s.holder, s.term); });
  return reported == 1;
}

}  // namespace observing

int main() {
  const bool names = forgemeter::LeaseNames::process().claimed(kSweeperLease), run = campaign::example(),
             memory = memory_store_h(), postgres = postgres_store_h(), etcd = etcd_store_h(),
             elect = elected::example(), watch = observing::example();
  std::printf("LeaseNames %s, campaign.h %s, memory_store.h %s, postgres_store.h %s, etcd_store.h %s, "
              "elected_lane.h %s, observe.h %s\n",
              names ? "ok" : "FAILED", run ? "ok" : "FAILED", memory ? "ok" : "FAILED", postgres ? "ok" : "FAILED",
              etcd ? "ok" : "FAILED", elect ? "ok" : "FAILED", watch ? "ok" : "FAILED");
  return names && run && memory && postgres && etcd && elect && watch ? 0 : 1;
}
