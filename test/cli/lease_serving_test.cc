// `forgemeter lease run --metrics-addr` through the serving room, as an
// orchestrator and an attacker meet it: /healthz stays fast with 1 000 idle
// and 1 000 half-sent connections open and after a storm of 10 000
// connection attempts (the excess closed at accept); SIGTERM with
// --shutdown-delay turns /readyz 503 at once while /healthz serves for the
// delay; TLS made here is served and verified; plain HTTP off loopback is a
// usage error. The memory store: no server needed. Label no-asan: ASan's
// quarantine and slower threads would measure the sanitizer, not the server.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "forgemeter_bin.h"
#include "serve/serve_client.h"
#include "support/eventually.h"
#include "support/free_port.h"
#include "support/promtool.h"
#include "support/temp_files.h"

using namespace fmtest;
using namespace std::chrono;

namespace {

struct Running {
  Spawned proc;
  int port;
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port) + path; }
};

Running start(const TempDir& dir, std::vector<std::string> extra = {}) {
  const int port = free_loopback_port();
  REQUIRE(port > 0);
  std::vector<std::string> argv = {
      forgemeter_bin(), "lease", "run", "--store", "memory:", "--metrics-addr", "127.0.0.1:" + std::to_string(port)};
  argv.insert(argv.end(), extra.begin(), extra.end());
  for (const char* a : {"serving", "--", "sleep", "300"}) argv.emplace_back(a);
  Running r{spawn_process(argv, dir.file("out"), dir.file("err")), port};
  REQUIRE(eventually([&] { return fetch(r.url("/healthz")).status == 200; }, seconds(20)));
  return r;
}

long rss_kib(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

// The p99 of `n` /healthz round trips, each on a new connection as a probe makes them.
milliseconds healthz_p99(const Running& r, int n) {
  std::vector<microseconds> took;
  for (int i = 0; i < n; ++i) {
    const auto t0 = steady_clock::now();
    const Fetched f = fetch(r.url("/healthz"));
    took.push_back(duration_cast<microseconds>(steady_clock::now() - t0));
    CHECK(f.status == 200);
  }
  std::sort(took.begin(), took.end());
  return duration_cast<milliseconds>(took[static_cast<std::size_t>(n * 99 / 100) - 1]);
}

int connect_nonblocking(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(static_cast<std::uint16_t>(port));
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::connect(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin);  // EINPROGRESS: in the kernel's hands
  return fd;
}

void raise_own_file_limit() {
  rlimit l{};
  ::getrlimit(RLIMIT_NOFILE, &l);
  l.rlim_cur = l.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &l);
}

}  // namespace

TEST_CASE("idle and half-sent connections and a storm of attempts never stop /healthz") {
  raise_own_file_limit();
  TempDir dir;
  // The maximum below the storm so that part of it is excess.
  Running r = start(dir, {"--max-connections", "4096"});
  const long rss_before = rss_kib(r.proc.pid);
  std::vector<int> held;
  for (int i = 0; i < 1000; ++i) held.push_back(raw_connect(r.port));  // idle: not a byte
  const std::string half = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Never: done";
  for (int i = 0; i < 1000; ++i) {  // half-sent: a head that never ends
    const int fd = raw_connect(r.port);
    ::send(fd, half.data(), half.size(), MSG_NOSIGNAL);
    held.push_back(fd);
  }
  const milliseconds held_p99 = healthz_p99(r, 100);
  MESSAGE("p99 of 100 /healthz with 2000 connections held: " << held_p99.count() << " ms; server RSS "
                                                             << rss_kib(r.proc.pid) - rss_before << " KiB more");
  CHECK(held_p99 <= 100ms);
  const Fetched metrics = fetch(r.url("/metrics"));
  CHECK(metrics.status == 200);
  CHECK(promtool_check_metrics(metrics.body) == "");

  std::vector<int> storm;
  for (int i = 0; i < 10'000; ++i) storm.push_back(connect_nonblocking(r.port));
  int closed = 0;
  for (int fd : storm) closed += closed_by_peer(fd, 5ms) ? 1 : 0;
  MESSAGE(closed << " of 10000 attempts closed at accept; server RSS " << rss_kib(r.proc.pid) - rss_before
                 << " KiB more than idle");
  CHECK(closed >= 10'000 - (4096 - 2000) - 16 - 100);  // the excess (100: still in the kernel's queue at the look)
  for (int fd : storm) ::close(fd);
  const milliseconds after_p99 = healthz_p99(r, 20);
  CHECK(after_p99 <= 100ms);
  for (int fd : held) ::close(fd);
  CHECK(terminate_process(r.proc.pid) == 128 + SIGTERM);
}

TEST_CASE("SIGTERM with --shutdown-delay: /readyz 503 at once, /healthz for the delay, then gone") {
  TempDir dir;
  Running r = start(dir, {"--shutdown-delay", "2s"});
  CHECK(fetch(r.url("/readyz")).status == 200);
  const auto signalled = steady_clock::now();
  ::kill(r.proc.pid, SIGTERM);
  REQUIRE(eventually([&] { return fetch(r.url("/readyz")).status == 503; }, seconds(5)));
  CHECK(steady_clock::now() - signalled < 1500ms);  // at once (the margin: a loaded machine's scheduling)
  while (steady_clock::now() - signalled < 1500ms) CHECK(fetch(r.url("/healthz")).status == 200);
  CHECK(wait_exit(r.proc.pid, seconds(20)) == 128 + SIGTERM);
  CHECK(steady_clock::now() - signalled >= 2s);  // the listener stayed for the delay
  CHECK(fetch(r.url("/healthz")).status == 0);
}

TEST_CASE("TLS from a certificate made here; plain HTTP off loopback is refused") {
  TempDir dir;
  const std::string cert = dir.file("cert.pem"), key = dir.file("key.pem");
  const std::string make =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
      "-addext subjectAltName=IP:127.0.0.1 -keyout " +
      key + " -out " + cert + " 2>/dev/null";
  REQUIRE(std::system(make.c_str()) == 0);
  const int port = free_loopback_port();
  Spawned p = spawn_process(
      {forgemeter_bin(), "lease", "run", "--store", "memory:", "--metrics-addr", "127.0.0.1:" + std::to_string(port),
       "--tls-cert", cert, "--tls-key", key, "tls", "--", "sleep", "300"},
      dir.file("out"), dir.file("err"));
  const std::string url = "https://127.0.0.1:" + std::to_string(port) + "/metrics";
  REQUIRE(eventually([&] { return fetch(url, "GET", {}, {}, cert).status == 200; }, seconds(20)));
  CHECK(fetch(url, "GET", {}, {}, cert).body.find("forgemeter_lease_leader") != std::string::npos);
  CHECK(terminate_process(p.pid) == 128 + SIGTERM);

  const ProcessResult refused = run_process(
      {forgemeter_bin(), "lease", "run", "--store", "memory:", "--metrics-addr", "0.0.0.0:9464", "tls", "--", "true"});
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("is not a loopback address: give --tls-cert and --tls-key, or --insecure-listen") !=
        std::string::npos);
}
