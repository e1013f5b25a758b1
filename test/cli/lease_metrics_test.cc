// `forgemeter lease run --metrics-addr`: two processes on PostgreSQL, TTL 3 s
// (retry 1 s), each serving /metrics and /healthz on its own loopback port.
// Exactly one reports forgemeter_lease_leader 1 while both run; after a
// SIGTERM to the holder the other one does, within 10 s (a handover takes
// one retry, 1 s, or a wake-up; the margin is for a loaded 2-core machine).
// promtool check metrics (Debian package prometheus) is clean on both
// expositions; without promtool that check is skipped (CI: a failure).
// Then the refusals: an address that is not HOST:PORT (exit 2), a port in use (exit 1),
// a privileged port for a user without the right (exit 1, "permission denied").
#include <doctest/doctest.h>

#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "command_marks.h"
#include "core/components.h"
#include "forgemeter_bin.h"
#include "support/eventually.h"
#include "support/free_port.h"
#include "support/promtool.h"
#include "support/silent_listener.h"
#include "support/skips.h"
#include "support/temp_files.h"
#if FORGEMETER_HAS_POSTGRES
#include "support/pg_env.h"
#endif

using namespace fmtest;
using namespace std::chrono;

namespace {

struct Replica {
  int port;
  Spawned proc;
};

std::optional<httplib::Result> get(int port, const std::string& path) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(1s);
  c.set_read_timeout(2s);
  auto r = c.Get(path);
  if (!r) return std::nullopt;
  return r;
}

// forgemeter_lease_leader's value in `port`'s exposition: 0, 1, or -1 when unreachable.
int leader(int port) {
  auto r = get(port, "/metrics");
  if (!r || (*r)->status != 200) return -1;
  const std::string& body = (*r)->body;
  const std::size_t at = body.find("\nforgemeter_lease_leader{");
  if (at == std::string::npos) return -1;
  const std::size_t sp = body.find("} ", at);
  return body.compare(sp + 2, 2, "1\n") == 0 ? 1 : 0;
}

void promtool_clean(int port) {
  auto r = get(port, "/metrics");
  REQUIRE(r);
  CHECK(fmtest::promtool_check_metrics((*r)->body) == "");
}

}  // namespace

#if FORGEMETER_HAS_POSTGRES
FM_SUITE_PG_TEST("lease run --metrics-addr on PostgreSQL: one leader at a time, the value moves after SIGTERM") {
  TempDir dir;
  const std::string log = dir.file("marks");
  const std::string name = "metrics-" + std::to_string(getpid());
  auto start = [&](const std::string& owner) {
    const int port = free_loopback_port();
    REQUIRE(port > 0);
    return Replica{port, spawn_process(metrics_replica(*pg, name, owner, "127.0.0.1:" + std::to_string(port), log),
                                       dir.file(owner + ".out"), dir.file(owner + ".err"))};
  };
  Replica a = start("a");
  REQUIRE(eventually([&] { return leader(a.port) == 1; }, seconds(20)));
  Replica b = start("b");
  REQUIRE(eventually([&] { return leader(b.port) == 0; }, seconds(20)));
  for (int i = 0; i < 10; ++i) {  // 3 TTLs' worth of renewals at 1/3 TTL: still exactly one
    CHECK(leader(a.port) + leader(b.port) == 1);
    std::this_thread::sleep_for(100ms);  // spacing the samples, not a synchronisation
  }
  auto health = get(a.port, "/healthz");
  REQUIRE(health);
  CHECK((*health)->status == 200);
  CHECK((*health)->body == "ok\n");
  promtool_clean(a.port);
  promtool_clean(b.port);

  kill(a.proc.pid, SIGTERM);
  REQUIRE(eventually([&] { return leader(b.port) == 1; }, seconds(10)));
  CHECK(wait_exit(a.proc.pid, seconds(20)) == 0);
  CHECK(leader(a.port) == -1);  // gone with its process
  CHECK(get(b.port, "/healthz").has_value());

  // Refusals before any campaign: not HOST:PORT (exit 2), a port in use (b's).
  for (const std::string bad : {"9464", "127.0.0.1:", "127.0.0.1:99999", ":9464", "127.0.0.1:x"}) {
    const ProcessResult r = run_process(
        {forgemeter_bin(), "lease", "run", "--store", *pg, "--name", name, "--metrics-addr", bad, "--", "true"});
    CHECK_MESSAGE(r.exit_code == 2, bad);
    CHECK(r.err.find("--metrics-addr '" + bad + "'") != std::string::npos);
  }
  const std::string taken = "127.0.0.1:" + std::to_string(b.port);
  const ProcessResult r = run_process(
      {forgemeter_bin(), "lease", "run", "--store", *pg, "--name", name, "--metrics-addr", taken, "--", "true"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("--metrics-addr " + taken + ": the port is in use; choose another") != std::string::npos);
  kill(b.proc.pid, SIGTERM);
  CHECK(wait_exit(b.proc.pid, seconds(20)) == 0);
}
#endif

#if FORGEMETER_HAS_POSTGRES
TEST_CASE("lease run --metrics-addr against a frozen store: /healthz says 503 and why, after a TTL") {
  SilentListener frozen;  // connects, never answers: a store that froze
  const std::string store = "host=127.0.0.1 port=" + std::to_string(frozen.port()) + " user=postgres dbname=postgres";
  const int port = free_loopback_port();
  REQUIRE(port > 0);
  TempDir dir;
  Spawned p = spawn_process({forgemeter_bin(), "lease", "run", "--store", store, "--name", "frozen", "--ttl", "2s",
                             "--metrics-addr", "127.0.0.1:" + std::to_string(port), "--", "true"},
                            dir.file("out"), dir.file("err"));
  // healthy while the first TTL runs (served within 10 s: process start on a loaded machine)
  REQUIRE(eventually([&] { return get(port, "/healthz").has_value(); }, seconds(10)));
  // then unhealthy: no store answer for a TTL (2 s; 10 s more for a loaded machine)
  std::optional<httplib::Result> health;
  REQUIRE(eventually(
      [&] {
        health = get(port, "/healthz");
        return health && (*health)->status == 503;
      },
      seconds(12)));
  CHECK((*health)->body.rfind("no answer from the lease store for ", 0) == 0);
  CHECK((*health)->body.find("(TTL 2.000s)\n") != std::string::npos);
  CHECK(leader(port) == 0);
  kill(p.pid, SIGTERM);
  CHECK(wait_exit(p.pid, seconds(20)) == 128 + SIGTERM);  // stopped before any term: 128 + the signal
}
#endif

#if FORGEMETER_HAS_PROMETHEUS
TEST_CASE("lease run --metrics-addr on a privileged port without the right to it: permission denied, exit 1") {
  // Ports below net.ipv4.ip_unprivileged_port_start need CAP_NET_BIND_SERVICE.
  int unprivileged_from = 1024;
  std::ifstream("/proc/sys/net/ipv4/ip_unprivileged_port_start") >> unprivileged_from;
  if (unprivileged_from <= 80) {
    MESSAGE("every port is unprivileged on this machine (ip_unprivileged_port_start " << unprivileged_from
                                                                                      << "): nothing to refuse");
    return;
  }
  // As root the command runs as nobody (setpriv: util-linux, always on Debian),
  // who lacks the right, as a user would.
  std::vector<std::string> argv;
  if (geteuid() == 0) argv = {"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"};
  for (const std::string word : {forgemeter_bin(), std::string("lease"), std::string("run"), std::string("--store"),
                                 std::string("memory:"), std::string("low-port"), std::string("--metrics-addr"),
                                 std::string("127.0.0.1:80"), std::string("--"), std::string("true")})
    argv.push_back(word);
  const ProcessResult r = run_process(argv);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("--metrics-addr 127.0.0.1:80: permission denied (a port below 1024 needs root or "
                   "CAP_NET_BIND_SERVICE)") != std::string::npos);
  CHECK(r.err.find("in use") == std::string::npos);
  CHECK(r.out.empty());
}
#endif
