// `forgemeter lease run`: clean-stop handovers between processes on
// PostgreSQL and on a three-member etcd cluster, TTL 9 s (retry 3 s): SIGTERM
// to the holder's `lease run`, whose CMD exits at once; the waiting candidate
// is woken by the store (NOTIFY, a watch) and its CMD starts. 20 handovers on
// each store, timed from the holder's CMD exiting to the successor's CMD
// starting, never two CMDs at once. The figures are printed against the
// targets (median <= 100 ms, worst <= 250 ms); what the test asserts is
// that the wake-up, not a poll, handed over: median <= 300 ms and worst <= 1 s,
// where a polling successor (retry 3 s) would wait 1.5 s on average — margins
// for a 2-core machine under a load of 8-10, where starting CMD (a sentinel,
// then sh) alone took 70-170 ms (medians measured: PostgreSQL 46-172 ms,
// etcd 35-81 ms, depending on the load; bench/handover.md). (Memory, in one process, and the wake-up
// suppressed: the conformance row "20 clean handovers at TTL 9 s".)
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "command_marks.h"
#include "core/components.h"
#include "forgemeter_bin.h"
#include "support/eventually.h"
#include "support/skips.h"
#if FORGEMETER_HAS_ETCD
#include "support/etcd_cluster.h"
#endif
#if FORGEMETER_HAS_POSTGRES
#include "support/pg_env.h"
#endif

using namespace fmtest;
using namespace std::chrono;

namespace {

void twenty_handovers(const std::string& store) {
  TempDir dir;
  const std::string log = dir.file("marks");
  const std::string name = "handover-" + std::to_string(getpid());
  int spawned = 0;
  auto start = [&] {
    const std::string owner = "p" + std::to_string(spawned++);
    return spawn_process({forgemeter_bin(), "lease", "run", "--store", store, "--name", name, "--owner", owner, "--ttl",
                          "9s", "--retry", "3s", "--", "sh", "-c", kMarkingCmd, "sh", log},
                         dir.file(owner + ".out"), dir.file(owner + ".err"));
  };
  Spawned holder = start();
  REQUIRE(eventually([&] { return ups(log) == 1; }, seconds(20)));
  std::vector<double> took;
  for (int i = 0; i < 20; ++i) {
    Spawned candidate = start();
    REQUIRE(eventually([&] { return sockets(candidate.pid) >= 2; }, seconds(20)));
    kill(holder.pid, SIGTERM);
    REQUIRE(eventually([&] { return ups(log) == static_cast<std::size_t>(i) + 2; }, seconds(20)));
    CHECK(wait_exit(holder.pid, seconds(20)) == 0);  // CMD's trap exits 0, forwarded
    const auto m = marks(log);
    const Mark& next = m.back();
    const Mark* down = nullptr;
    for (const auto& x : m)
      if (x.kind == "down") down = &x;
    REQUIRE(down != nullptr);
    CHECK(next.kind == "up");
    CHECK(next.ns > down->ns);  // never two CMDs at once
    took.push_back(static_cast<double>(next.ns - down->ns) / 1e6);
    holder = candidate;
  }
  kill(holder.pid, SIGTERM);
  CHECK(wait_exit(holder.pid, seconds(20)) == 0);
  std::vector<double> sorted = took;
  std::sort(sorted.begin(), sorted.end());
  const double median = (sorted[9] + sorted[10]) / 2;
  std::ostringstream all;
  for (double t : took) all << static_cast<int>(t) << " ";
  MESSAGE("20 clean handovers (CMD down -> next CMD up): median "
          << median << " ms, worst " << sorted.back() << " ms (targets: 100 and 250 ms"
          << std::string(median <= 100 && sorted.back() <= 250 ? ", met" : ", not met on this machine now")
          << "); each: " << all.str());
  CHECK(median <= 300);
  CHECK(sorted.back() <= 1000);
}

}  // namespace

#if FORGEMETER_HAS_POSTGRES
FM_SUITE_PG_TEST("lease run on PostgreSQL, TTL 9 s: 20 clean handovers, each woken, none overlapping") {
  twenty_handovers(*pg);
}
#endif

#if FORGEMETER_HAS_ETCD
TEST_CASE("lease run on a three-member etcd cluster, TTL 9 s: 20 clean handovers, each woken, none overlapping") {
  if (!fmtest::EtcdCluster::available()) {
    fmtest::skipped("no etcd binary on PATH (Debian package etcd-server): the etcd handover test did not run");
    return;
  }
  fmtest::EtcdCluster cluster(3);
  twenty_handovers(cluster.uri("/handover/"));
}
#endif
