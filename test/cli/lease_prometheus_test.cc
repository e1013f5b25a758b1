// A real Prometheus server (Debian's `prometheus`) scraping two
// `forgemeter lease run --metrics-addr` replicas on PostgreSQL (TTL 3 s,
// retry 1 s), read back through its HTTP query API: what a real server
// scrapes is one leader at a time, handed over on a stop.
// The test starts Prometheus itself on 127.0.0.1 at a free port, as the
// current user, with a scrape and evaluation interval of 1 s and a scratch
// TSDB, and stops it with SIGTERM at the end, whatever happened (exit 0).
//
// It finds: `up` 1 for both targets; exactly one replica with
// forgemeter_lease_leader 1 and sum(forgemeter_lease_leader) 1, sampled over
// 3 s of steady state; after a SIGTERM to the holder, the other replica's
// value 1 and the stopped one's target down within 15 s (a handover takes one
// retry, 1 s, or a wake-up; Prometheus sees it within a scrape interval, 1 s;
// the rest is margin for a loaded 2-core machine). During the handover
// itself Prometheus may read two leaders for up to one scrape interval (the
// replicas are scraped at different instants; docs/metrics.md,
// ForgemeterLeaseTwoLeaders): the samples are taken before and after it.
//
// No `prometheus` on PATH: Skipped (support/skips.h), under CI=true a
// failure. A Prometheus that does not become ready fails with its stderr.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "command_marks.h"
#include "core/components.h"
#include "forgemeter_bin.h"
#include "support/eventually.h"
#include "support/free_port.h"
#include "support/prometheus_server.h"
#include "support/skips.h"
#if FORGEMETER_HAS_POSTGRES
#include "support/pg_env.h"
#endif

using namespace fmtest;
using namespace std::chrono;

namespace {

// A child process SIGTERMed and reaped at destruction (SIGKILL after 30 s).
struct Child {
  Spawned proc;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  explicit Child(Spawned p) : proc(std::move(p)) {}
  ~Child() { stop(); }
  int stop() {
    if (proc.pid <= 0) return code;
    code = terminate_process(proc.pid);
    proc.pid = -1;
    return code;
  }
  int code = -1;
};

}  // namespace

#if FORGEMETER_HAS_POSTGRES
FM_SUITE_PG_TEST("a real Prometheus scraping two lease run replicas: one leader at a time, moving after SIGTERM") {
  if (!prometheus_present()) return;
  TempDir dir;
  const std::string log = dir.file("marks");
  const std::string name = "prom-" + std::to_string(getpid());
  const int port_a = free_loopback_port(), port_b = free_loopback_port();
  REQUIRE(port_a > 0);
  REQUIRE(port_b > 0);
  REQUIRE(port_a != port_b);
  const std::string inst_a = "127.0.0.1:" + std::to_string(port_a), inst_b = "127.0.0.1:" + std::to_string(port_b);
  auto start = [&](const std::string& owner, const std::string& addr) {
    return spawn_process(metrics_replica(*pg, name, owner, addr, log), dir.file(owner + ".out"),
                         dir.file(owner + ".err"));
  };
  PrometheusServer prom(dir, "lease", {inst_a, inst_b});  // declared before the replicas: stopped after them
  Child a(start("a", inst_a));
  const auto leader = [&] { return prom.by_instance("forgemeter_lease_leader{job=\"lease\"}"); };
  REQUIRE(eventually([&] { return leader()[inst_a] == 1; }, seconds(30)));
  Child b(start("b", inst_b));
  // both scraped: up 1 and a leader series from each (30 s: b's start, a scrape, a loaded machine)
  REQUIRE(eventually(
      [&] {
        auto up = prom.by_instance("up{job=\"lease\"}");
        auto l = leader();
        return up.size() == 2 && up[inst_a] == 1 && up[inst_b] == 1 && l.size() == 2;
      },
      seconds(30)));
  for (int i = 0; i < 10; ++i) {  // 3 s: 3 scrapes of each, 3 renewals of a's term
    const auto l = leader();
    CHECK(l.size() == 2);
    CHECK((l.count(inst_a) == 1 && l.at(inst_a) == 1));
    CHECK((l.count(inst_b) == 1 && l.at(inst_b) == 0));
    const auto sum = prom.query("sum(forgemeter_lease_leader{job=\"lease\"})");
    REQUIRE(sum.size() == 1);
    CHECK(sum.front().second == 1);
    std::this_thread::sleep_for(300ms);  // spacing the samples, not a synchronisation
  }

  kill(a.proc.pid, SIGTERM);
  // b leads, and a's target is down (its series marked stale): 15 s, margins above
  REQUIRE(eventually(
      [&] {
        auto l = leader();
        auto up = prom.by_instance("up{job=\"lease\"}");
        return l.size() == 1 && l[inst_b] == 1 && up[inst_a] == 0 && up[inst_b] == 1;
      },
      seconds(15)));
  CHECK(a.stop() == 0);
  for (int i = 0; i < 5; ++i) {  // 1.5 s after the handover: still exactly one, b
    const auto l = leader();
    CHECK(l.size() == 1);
    CHECK((l.count(inst_b) == 1 && l.at(inst_b) == 1));
    const auto sum = prom.query("sum(forgemeter_lease_leader{job=\"lease\"})");
    REQUIRE(sum.size() == 1);
    CHECK(sum.front().second == 1);
    std::this_thread::sleep_for(300ms);  // spacing the samples, not a synchronisation
  }
  CHECK(b.stop() == 0);
  CHECK(prom.stop() == 0);
}
#endif
