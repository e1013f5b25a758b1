// Clients of `forgemeter lease serve` as people write them, in Debian's
// python3 with its standard library only (test/cli/elector_clients/): one
// written for Kubernetes' leader-elector (GET /, compared with the host
// name) and one for nais/elector's /sse, unchanged; the event stream's ids
// and its reconnect; and docs/elector.md's own Python client, run as it
// stands there, across a resign. One replica on the memory store, TTL 1 s
// (a resigned replica stays out 1 s, then leads again in the next term).
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "serve_fleet.h"
#include "support/eventually.h"
#include "support/process.h"
#include "support/promtool.h"
#include "support/skips.h"

using namespace fmtest;
using namespace std::chrono;

namespace {

const std::string kPython = "/usr/bin/python3";  // Debian's, not one on PATH
const std::string kClients = FORGEMETER_SOURCE_DIR "/test/cli/elector_clients/";

bool have_python() {
  if (access(kPython.c_str(), X_OK) == 0) return true;
  skipped("no /usr/bin/python3 (Debian package python3): the lease serve client tests did not run");
  return false;
}

bool leads(ServeFleet& f) {
  const auto r = run_process({kPython, "-c",
                              "import json,sys,urllib.request;"
                              "sys.exit(0 if json.load(urllib.request.urlopen(sys.argv[1]))['leader'] else 1)",
                              f.base(0) + "/leases/sweeper"});
  return r.exit_code == 0;
}

}  // namespace

TEST_CASE("lease serve: a Kubernetes leader-elector client and a nais/elector /sse client work unchanged") {
  if (!have_python()) return;
  ServeFleet f("memory:", "sweeper", {"--ttl", "3s"}, 1, /*poll=*/false, /*owners=*/false);
  f.start(0);
  REQUIRE(eventually([&] { return leads(f); }, seconds(10)));
  const auto k8s = run_process({kPython, kClients + "k8s_client.py", f.base(0), "3"});
  CHECK(k8s.exit_code == 0);
  CHECK(k8s.out == "leader\nleader\nleader\n");

  LineChild nais({kPython, kClients + "nais_sse_client.py", f.base(0), "3"});
  REQUIRE(!nais.await_line([](const std::string& l) { return l.starts_with("name="); }, seconds(10)).empty());
  CHECK(f.resign(0) == 202);  // released, out one TTL (3 s), then elected again
  CHECK(nais.wait_exit(seconds(15)) == 0);
  const auto lines = nais.lines();
  REQUIRE(lines.size() == 3);
  CHECK(lines[1] == "name=");
  CHECK(lines[0] == lines[2]);
  CHECK(lines[0] != "name=");
  const auto again = run_process({kPython, kClients + "k8s_client.py", f.base(0), "1"});
  CHECK(again.out == "leader\n");
}

TEST_CASE("lease serve: events arrive with ids TERM.SEQ; a reconnect with Last-Event-ID gets the state first") {
  if (!have_python()) return;
  ServeFleet f("memory:", "sweeper", {"--ttl", "1s"}, 1, /*poll=*/false);
  f.start(0);
  REQUIRE(eventually([&] { return leads(f); }, seconds(10)));
  // The admin listener's /metrics, without a token: the lease's families.
  const auto scraped = run_process({kPython, "-c",
                                    "import sys,urllib.request;"
                                    "sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())",
                                    f.admin(0) + "/metrics"});
  REQUIRE(scraped.exit_code == 0);
  CHECK(scraped.out.find("forgemeter_lease_leader{lease=\"sweeper\"} 1\n") != std::string::npos);
  CHECK(promtool_check_metrics(scraped.out) == "");
  const auto r = run_process({kPython, kClients + "sse_check.py", f.base(0), f.admin(0), f.token(), "sweeper"},
                             ProcessOptions{{}, {}, milliseconds(30'000)});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  MESSAGE(r.out);
}

TEST_CASE("lease serve: docs/elector.md's Python client acts only within its promises, across a resign") {
  if (!have_python()) return;
  ServeFleet f("memory:", "sweeper", {"--ttl", "1s"}, 1, /*poll=*/false);
  f.start(0);
  REQUIRE(eventually([&] { return leads(f); }, seconds(10)));
  const auto r = run_process({kPython, kClients + "doc_client.py", FORGEMETER_SOURCE_DIR "/docs/elector.md", f.base(0),
                              f.admin(0), f.token(), "sweeper"},
                             ProcessOptions{{}, {}, milliseconds(30'000)});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  MESSAGE(r.out);
}

TEST_CASE("lease serve: SIGHUP keeps it serving; --exit-on-loss ends it with 75 at the first lost term") {
  if (!have_python()) return;
  ServeFleet f("memory:", "sweeper", {"--ttl", "1s", "--exit-on-loss"}, 1, /*poll=*/false);
  f.start(0);
  REQUIRE(eventually([&] { return leads(f); }, seconds(10)));
  f.signal(0, SIGHUP);  // re-reads TLS (none here): no stop
  CHECK(f.wait_exit(0, milliseconds(300)) == -1);
  CHECK(leads(f));
  f.signal(0, SIGSTOP);                     // stalled past its serving window: its term ends when it runs again
  std::this_thread::sleep_for(seconds(2));  // the stall itself, not a wait for a condition
  f.signal(0, SIGCONT);
  CHECK(f.wait_exit(0, seconds(10)) == 75);
  CHECK(f.err(0).find("--exit-on-loss: exiting (status 75)") != std::string::npos);
}

TEST_CASE("lease serve: docs/elector.md's Go client acts only within its promises, across a resign") {
  const std::string go = find_on_path("go");
  if (go.empty()) {
    skipped("no Go toolchain on PATH (Debian package golang-go): docs/elector.md's Go client did not run");
    return;
  }
  TempDir mod;
  const std::string doc = read_file(FORGEMETER_SOURCE_DIR "/docs/elector.md");
  const std::size_t at = doc.find("```go\n") + 6;
  write_file(mod.file("elector.go"), doc.substr(at, doc.find("```", at) - at));
  write_file(mod.file("lead_test.go"), read_file(kClients + "lead_test.go"));
  write_file(mod.file("go.mod"), "module example.com/elector\n\ngo 1.19\n");
  ServeFleet f("memory:", "sweeper", {"--ttl", "1s"}, 1, /*poll=*/false);
  f.start(0);
  REQUIRE(eventually([&] { return leads(f); }, seconds(10)));
  const auto r = run_process({"/bin/sh", "-c", "cd \"$0\" && exec \"$1\" test -count=1 -v .", mod.path(), go},
                             ProcessOptions{{},
                                            {{"ELECTOR_BASE", f.base(0)},
                                             {"ELECTOR_ADMIN", f.admin(0)},
                                             {"ELECTOR_TOKEN", f.token()},
                                             {"GOPROXY", "off"},
                                             {"GOFLAGS", "-mod=mod"},
                                             {"GOCACHE", mod.file("cache")},
                                             {"GOPATH", mod.file("gopath")}},
                                            milliseconds(120'000)});
  CHECK_MESSAGE(r.exit_code == 0, r.out << r.err);
  MESSAGE(r.out.substr(0, r.out.find('\n', r.out.find("steps in terms"))));
}
