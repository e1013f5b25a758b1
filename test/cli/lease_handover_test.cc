// `forgemeter lease run`: clean-stop handovers between processes on
// PostgreSQL and on a three-member etcd cluster, TTL 9 s (retry 3 s): SIGTERM
// to the holder's `lease run`, whose CMD exits at once; the waiting candidate
// is woken by the store (NOTIFY, a watch) and its CMD starts. 20 handovers on
// each store, timed from the holder's CMD exiting to the successor's CMD
// starting, never two CMDs at once. The figures are printed against issue
// 27's targets (median <= 100 ms, worst <= 250 ms); what the test asserts is
// that the wake-up, not a poll, handed over: median <= 300 ms and worst <= 1 s,
// where a polling successor (retry 3 s) would wait 1.5 s on average — margins
// for a 2-core machine under a load of 8-10, where starting CMD (a sentinel,
// then sh) alone took 70-170 ms (medians measured: PostgreSQL 46-172 ms,
// etcd 35-81 ms, depending on the load; bench/README.md#clean-handover). (Memory, in one process, and the wake-up
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

#include "core/components.h"
#include "forgemeter_bin.h"
#include "support/skips.h"
#if FORGEMETER_HAS_ETCD
#include "support/etcd_cluster.h"
#endif

using namespace fmtest;
using namespace std::chrono;

namespace {

// CMD: appends "up <ns> <owner>" when it starts and "down <ns> <owner>" when
// SIGTERM ends it (at once: `wait` is interrupted by the trap).
const std::string kCmd =
    "f=$1; trap 'echo \"down $(date +%s%N) $FORGEMETER_LEASE_OWNER\" >> $f; exit 0' TERM; "
    "echo \"up $(date +%s%N) $FORGEMETER_LEASE_OWNER\" >> $f; sleep 3600 & wait";

struct Mark {
  std::string kind, owner;
  std::int64_t ns = 0;
};

std::vector<Mark> marks(const std::string& path) {
  std::vector<Mark> out;
  std::istringstream in(read_file(path));
  Mark m;
  while (in >> m.kind >> m.ns >> m.owner) out.push_back(m);
  return out;
}

std::size_t ups(const std::string& path) {
  std::size_t n = 0;
  for (const auto& m : marks(path)) n += m.kind == "up";
  return n;
}

template <class P>
bool eventually(P pred, milliseconds timeout) {
  const auto end = steady_clock::now() + timeout;
  while (steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return pred();
}

// Sockets `pid` holds: a campaigning `lease run` has two once it polls (its
// store's connection and its listening session or watch).
int sockets(pid_t pid) {
  int n = 0;
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    const auto target = std::filesystem::read_symlink(fd.path(), ec);
    n += !ec && target.string().rfind("socket:", 0) == 0;
  }
  return n;
}

void twenty_handovers(const std::string& store) {
  TempDir dir;
  const std::string log = dir.file("marks");
  const std::string name = "handover-" + std::to_string(getpid());
  int spawned = 0;
  auto start = [&] {
    const std::string owner = "p" + std::to_string(spawned++);
    return spawn_process({forgemeter_bin(), "lease", "run", "--store", store, "--name", name, "--owner", owner, "--ttl",
                          "9s", "--retry", "3s", "--", "sh", "-c", kCmd, "sh", log},
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
          << median << " ms, worst " << sorted.back() << " ms (issue 27's targets: 100 and 250 ms"
          << std::string(median <= 100 && sorted.back() <= 250 ? ", met" : ", not met on this machine now")
          << "); each: " << all.str());
  CHECK(median <= 300);
  CHECK(sorted.back() <= 1000);
}

}  // namespace

#if FORGEMETER_HAS_POSTGRES
TEST_CASE("lease run on PostgreSQL, TTL 9 s: 20 clean handovers, each woken, none overlapping") {
  const char* pg = std::getenv("FORGEMETER_TEST_PG");
  if (pg == nullptr || *pg == '\0') {
    const char* skip = std::getenv("FORGEMETER_SKIP_PG");
    REQUIRE_MESSAGE((skip != nullptr && std::string(skip) == "1"),
                    "FORGEMETER_TEST_PG is not set: run through scripts/dev test, or set FORGEMETER_SKIP_PG=1 to skip");
    fmtest::skipped("FORGEMETER_SKIP_PG=1: PostgreSQL-backed tests did not run");
    return;
  }
  twenty_handovers(pg);
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
