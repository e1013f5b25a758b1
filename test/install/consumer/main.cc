// Built against an installed forgemeter, through CMake (forgemeter::forgemeter)
// or through pkg-config alone: uses every component the install has, offline.
//   meter      two requests counted, the hour's line flushed
//   transport  a request it refuses unsent (only http and https are sent)
//   lease      a lease taken in a MemoryStore
//   postgres   a PostgresStore asked on a closed port: no answer, no crash
//   etcd       an EtcdStore from an etcd:// URI, asked the same
//   elected    elect() stopped before it campaigns: its lane refuses requests
//   prometheus a MeterCollectable's families (when prometheus-cpp was found)
// A store's part is compiled when its header is installed (a build without
// the store installs neither). -DFM_PART_<NAME> compiles that part alone,
// for linking through one component's .pc (forgemeter-<name>).
#include <chrono>
#include <cstdio>
#include <stop_token>
#include <string>

#if !defined(FM_PART_METER) && !defined(FM_PART_TRANSPORT) && !defined(FM_PART_LEASE) && !defined(FM_PART_POSTGRES) && \
    !defined(FM_PART_ETCD) && !defined(FM_PART_ELECTED) && !defined(FM_PART_PROMETHEUS)
#define FM_PART_METER
#define FM_PART_TRANSPORT
#define FM_PART_LEASE
#if __has_include(<forgemeter/postgres_store.h>)
#define FM_PART_POSTGRES
#endif
#if __has_include(<forgemeter/etcd_store.h>)
#define FM_PART_ETCD
#endif
#define FM_PART_ELECTED
#if __has_include(<forgemeter/prometheus.h>)
#define FM_PART_PROMETHEUS
#endif
#endif

#include <forgemeter/version.h>
#ifdef FM_PART_METER
#include <forgemeter/meter.h>
#endif
#if defined(FM_PART_TRANSPORT) || defined(FM_PART_ELECTED)
#include <forgemeter/transport.h>
#endif
#if defined(FM_PART_LEASE) || defined(FM_PART_ELECTED)
#include <forgemeter/memory_store.h>
#endif
#ifdef FM_PART_POSTGRES
#include <forgemeter/postgres_store.h>
#endif
#ifdef FM_PART_ETCD
#include <forgemeter/etcd_store.h>
#endif
#ifdef FM_PART_ELECTED
#include <forgemeter/elected_lane.h>
#endif
#ifdef FM_PART_PROMETHEUS
#include <forgemeter/prometheus.h>
#endif

namespace {

int failures = 0;

void check(const char* part, bool ok) {
  std::printf("%s: %s\n", part, ok ? "ok" : "FAILED");
  failures += ok ? 0 : 1;
}

#if defined(FM_PART_POSTGRES) || defined(FM_PART_ETCD)
// A store with no server behind it answers nothing, within the deadline.
bool unanswered(forgemeter::LeaseStore& store) {
  const auto& clock = forgemeter::system_clock();
  const auto r = store.acquire("consumer", "me", clock.now(), std::chrono::seconds(10),
                               forgemeter::Deadline::after(clock, std::chrono::seconds(2)));
  return r.status != forgemeter::LeaseStatus::granted;
}
#endif

}  // namespace

int main() {
  static_assert(FORGEMETER_VERSION >= 100, "version macros");
#ifdef FM_PART_METER
  {
    std::string got;
    {
      forgemeter::Meter meter({.sink = [&](std::string_view line) { got += std::string(line) + "\n"; }});
      forgemeter::LaneScope lane{forgemeter::Lane{"consumer"}};
      meter.record_request({.host = "api.github.com", .lane = forgemeter::current_lane()});
      meter.record_request({.host = "api.github.com", .lane = forgemeter::current_lane()});
    }
    check("meter", got.find("forge HTTP: 2 requests") != std::string::npos &&
                       std::string(forgemeter::version()) == FORGEMETER_VERSION_STRING);
  }
#endif
#ifdef FM_PART_TRANSPORT
  {
    forgemeter::Meter meter({.sink = [](std::string_view) {}});
    forgemeter::Transport transport({.meter = &meter});
    const forgemeter::Response res = transport.perform({.url = "ftp://example.invalid/"});
    check("transport", res.error.code == forgemeter::TransportErrc::invalid_request && res.hops.empty());
  }
#endif
#ifdef FM_PART_LEASE
  {
    forgemeter::MemoryStore store;
    const auto& clock = forgemeter::system_clock();
    const auto r = store.acquire("consumer", "me", clock.now(), std::chrono::seconds(10),
                                 forgemeter::Deadline::after(clock, std::chrono::seconds(1)));
    check("lease", r.status == forgemeter::LeaseStatus::granted && r.term == 1);
  }
#endif
#ifdef FM_PART_POSTGRES
  {
    forgemeter::PostgresStore store({.conninfo = "host=127.0.0.1 port=1 dbname=consumer connect_timeout=2"});
    check("postgres", unanswered(store));
  }
#endif
#ifdef FM_PART_ETCD
  {
    forgemeter::EtcdStore store(forgemeter::EtcdStoreOptions::from_uri("etcd://127.0.0.1:1/consumer/"));
    check("etcd", unanswered(store));
  }
#endif
#ifdef FM_PART_ELECTED
  {
    forgemeter::Meter meter({.sink = [](std::string_view) {}});
    forgemeter::Transport transport({.meter = &meter});
    forgemeter::MemoryStore store;
    std::stop_source stop;
    stop.request_stop();  // before it campaigns: no term, the lane stays gated
    bool served = false;
    forgemeter::elect(transport, forgemeter::Lane{"consumer"}, store, {.owner = "me", .ttl = std::chrono::minutes(1)},
                      stop.get_token(), [&](forgemeter::Term&) { served = true; });
    const forgemeter::Response late =
        transport.perform({.url = "https://api.github.com/", .lane = forgemeter::Lane{"consumer"}});
    check("elected", !served && late.error.code == forgemeter::TransportErrc::lane_refused);
  }
#endif
#ifdef FM_PART_PROMETHEUS
  {
    forgemeter::Meter meter({.sink = [](std::string_view) {}});
    meter.record_request({.host = "api.github.com"});
    const forgemeter::MeterCollectable collectable(meter);
    bool requests = false;
    for (const auto& family : collectable.Collect()) requests = requests || family.name == "forgemeter_requests_total";
    check("prometheus", requests);
  }
#endif
  return failures == 0 ? 0 : 1;
}
