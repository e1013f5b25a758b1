// A service using forgemeter's collectables, scraped by a real Prometheus
// (Debian's `prometheus`, started by the test on 127.0.0.1, scrape interval
// 1 s; support/prometheus_server.h) while it spends an installation's budget
// at the loopback forge in two lanes; read back through Prometheus' query API
// (cli_lease_prometheus_test does the same for lease run): what Prometheus
// reads is what the service spent, lane by lane.
//
// The service is this process: a Transport and its Meter against the forge,
// a campaign on a MemoryStore, and a prometheus::Exposer on 127.0.0.1 (port
// 0) serving the service's own Registry and the three collectables (Meter,
// Transport, campaign). The forge, the meter and the transport
// share a ManualClock 6 minutes into an hour, so the budget's window and its
// projection are the same on every machine: 300 requests an hour, 60 spent
// in the first 6 minutes, runs out at minute 30, long before the reset.
//
// Prometheus finds: each lane's forgemeter_requests_total equal to the
// forge's own count of that lane; remaining, limit and reset equal to the
// forge's last answer; the exhaustion projection present, after the
// reading and before the reset, and earlier once the budget fell faster;
// the 2xx hops' duration histogram counting each; three requests held at
// the forge as in flight, then none; the campaign's term as leader 1.
// promtool check metrics is clean on the exposition, hostile hosts (recorded
// straight into the meter, as a curl_meter user may) and lane names included.
#include <doctest/doctest.h>
#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/registry.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "forgemeter/campaign.h"
#include "forgemeter/lease_collectable.h"
#include "forgemeter/memory_store.h"
#include "forgemeter/meter.h"
#include "forgemeter/prometheus.h"
#include "forgemeter/testing/manual_clock.h"
#include "forgemeter/transport.h"
#include "forgemeter/transport_collectable.h"
#include "support/eventually.h"
#include "support/prometheus_server.h"
#include "support/temp_files.h"
#include "testforge/forge.h"

using namespace forgemeter;
using namespace std::chrono;
namespace tf = forgemeter::testforge;

namespace {

constexpr std::uint64_t kInstallation = 7;
constexpr std::uint64_t kLimit = 300;

// 2026-09-30T14:06:00Z: six minutes into the forge's hourly window.
UtcMillis six_past() { return UtcMillis{sys_days{2026y / 9 / 30} + hours{14} + minutes{6}}; }

struct Service {
  ManualClock clock{six_past()};
  tf::Forge forge{{.clock = &clock, .installation_limit = kLimit}};
  Meter meter{MeterOptions{.clock = &clock, .sink = [](std::string_view) {}}};
  Transport transport{
      {.meter = &meter, .clock = &clock, .resolve = forge.resolve(), .lane_header = std::string(tf::kLaneHeader)}};
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  LeaseMetrics lease;  // the campaign's figures
  // The Exposer keeps weak pointers: the service owns what it registers.
  std::shared_ptr<MeterCollectable> meter_metrics = std::make_shared<MeterCollectable>(meter);
  std::shared_ptr<TransportCollectable> transport_metrics = std::make_shared<TransportCollectable>(transport);
  std::shared_ptr<LeaseCollectable> lease_metrics = std::make_shared<LeaseCollectable>(lease);
  prometheus::Exposer exposer{"127.0.0.1:0"};  // after the meter: destroyed (no more scrapes) before it
  Response last;                               // the forge's last answer

  Service() {
    prometheus::BuildCounter().Name("service_jobs_total").Help("the service's own").Register(*registry).Add({});
    exposer.RegisterCollectable(registry);
    exposer.RegisterCollectable(meter_metrics);
    exposer.RegisterCollectable(transport_metrics);
    exposer.RegisterCollectable(lease_metrics);
  }

  int port() { return exposer.GetListeningPorts().front(); }
  std::string target() { return "127.0.0.1:" + std::to_string(port()); }
  std::string host() const { return "api.forge.test:" + std::to_string(forge.port()); }

  void spend(const char* lane, int n) {
    for (int i = 0; i < n; ++i) {
      last = transport.perform({.url = forge.url("api.forge.test", "/repos/o/r/issues/" + std::to_string(i)),
                                .lane = Lane(lane),
                                .installation = kInstallation,
                                .bearer = "inst-7"});
      REQUIRE(last.status == 200);
    }
  }
  // `n` requests held at the forge's /hold/<key> until release(key), each on a thread of its own.
  std::vector<std::jthread> hold(const std::string& key, int n) {
    std::vector<std::jthread> held;
    for (int i = 0; i < n; ++i)
      held.emplace_back([this, key] {
        transport.perform({.url = forge.url("api.forge.test", "/hold/" + key),
                           .lane = Lane("hold"),
                           .installation = kInstallation,
                           .bearer = "inst-7"});
      });
    return held;
  }
  double header(std::string_view name) const { return std::stod(std::string(last.header(name).value_or("-1"))); }
};

// A campaign for `name` on its own thread (real clock, TTL 3 s), its term's
// work waiting for the stop; stopped and joined at destruction.
class Campaigner {
 public:
  Campaigner(LeaseMetrics& metrics, const std::string& name)
      : thread_([this, &metrics, name] {
          MemoryStore store;
          campaign(store, {.name = name, .owner = "svc", .ttl = seconds(3), .metrics = &metrics}, stop_.get_token(),
                   [](Term& term) {
                     std::mutex mu;
                     std::condition_variable_any cv;
                     std::unique_lock lock(mu);
                     cv.wait(lock, term.stop_token(), [] { return false; });
                   });
        }) {}
  ~Campaigner() {
    stop_.request_stop();
    thread_.join();
  }

 private:
  std::stop_source stop_;
  std::thread thread_;
};

// The one value of `q` (NaN when Prometheus has none, or more than one).
double one(const fmtest::PrometheusServer& prom, const std::string& q) {
  const auto r = prom.query(q);
  return r.size() == 1 ? r.front().second : std::nan("");
}

}  // namespace

TEST_CASE("a real Prometheus scraping a service's collectables: the forge's numbers, per lane, projected") {
  if (!fmtest::prometheus_present()) return;
  fmtest::TempDir dir;
  Service svc;
  // A caller recording itself (curl_meter) may hand the meter any host bytes.
  const RequestKey hostile{.host = "evil\"host\\\n\x1b[31m\xc3\xa9:1", .lane = Lane("hostile.lane_0-9")};
  svc.meter.record_request(hostile, svc.clock.now());
  Campaigner campaigner(svc.lease, "svc-sweep");
  fmtest::PrometheusServer prom(dir, "service", {svc.target()});
  const std::string sel = "{job=\"service\",host=\"" + svc.host() + "\"";
  const std::string budget = sel + ",installation=\"7\",resource=\"core\"}";

  svc.spend("sweep", 40);
  svc.spend("triage.v2_x", 20);
  const auto truth = svc.forge.truth().by_lane();
  REQUIRE(truth.at("sweep") == 40);
  REQUIRE(truth.at("triage.v2_x") == 20);
  const double remaining = svc.header("X-RateLimit-Remaining");
  REQUIRE(remaining == kLimit - 60);
  // 10 s: a scrape interval, a loaded machine
  const auto seen = [&](const std::string& q, double want) {
    return fmtest::eventually([&] { return one(prom, q) == want; }, seconds(10));
  };
  CHECK(seen("sum(forgemeter_requests_total" + sel + ",lane=\"sweep\"})", 40));
  CHECK(seen("sum(forgemeter_requests_total" + sel + ",lane=\"triage.v2_x\"})", 20));
  CHECK(seen("forgemeter_rate_limit_remaining" + budget, remaining));
  CHECK(one(prom, "forgemeter_rate_limit_limit" + budget) == svc.header("X-RateLimit-Limit"));
  const double reset = svc.header("X-RateLimit-Reset");
  CHECK(one(prom, "forgemeter_rate_limit_reset_timestamp_seconds" + budget) == reset);
  // 60 of 300 in 6 minutes: the 240 left last 24 minutes more, to 14:30
  const double runs_out = one(prom, "forgemeter_rate_limit_exhaustion_timestamp_seconds" + budget);
  CHECK(runs_out == static_cast<double>(duration_cast<seconds>(six_past().time_since_epoch()).count() + 24 * 60));
  CHECK(runs_out < reset);

  // The budget falls faster: 120 more a minute later, the projection comes nearer.
  svc.clock.advance(minutes{1});
  svc.spend("sweep", 120);
  CHECK(seen("sum(forgemeter_requests_total" + sel + ",lane=\"sweep\"})", 160));
  CHECK(svc.forge.truth().by_lane().at("sweep") == 160);
  CHECK(seen("forgemeter_rate_limit_remaining" + budget, svc.header("X-RateLimit-Remaining")));
  const double sooner = one(prom, "forgemeter_rate_limit_exhaustion_timestamp_seconds" + budget);
  CHECK(sooner < runs_out);
  CHECK(sooner > static_cast<double>(duration_cast<seconds>(svc.clock.now().time_since_epoch()).count()));
  CHECK(one(prom, "up{job=\"service\"}") == 1);
  // every answered hop timed, 180 answers of 2xx, on the meter's clock: the
  // ManualClock stands still, so each took 0 s (transport_test times real ones)
  CHECK(one(prom, "forgemeter_request_duration_seconds_count" + sel + ",api=\"rest\",class=\"2xx\"}") == 180);
  CHECK(one(prom, "forgemeter_request_duration_seconds_bucket" + sel + ",api=\"rest\",class=\"2xx\",le=\"0.05\"}") ==
        180);
  CHECK(seen("forgemeter_lease_leader{job=\"service\",lease=\"svc-sweep\"}", 1));

  // Requests on the wire now: three held at the forge, then none.
  {
    std::vector<std::jthread> held = svc.hold("k", 3);
    REQUIRE(svc.forge.await_held("k", 3, seconds(10)));
    CHECK(seen("forgemeter_requests_in_flight{job=\"service\",installation=\"7\"}", 3));
    svc.forge.release("k");
  }
  CHECK(seen("forgemeter_requests_in_flight{job=\"service\",installation=\"7\"}", 0));
  CHECK(seen("sum(forgemeter_requests_total" + sel + ",lane=\"hold\"})", svc.forge.truth().by_lane().at("hold")));

  const std::optional<std::string> exposition = fmtest::http_get(svc.port(), "/metrics");
  REQUIRE(exposition.has_value());
  CHECK(exposition->find("lane=\"hostile.lane_0-9\"") != std::string::npos);
  CHECK(fmtest::promtool_check_metrics(*exposition) == "");
  CHECK(prom.stop() == 0);
}
