// prometheus_server.h — a real Prometheus (Debian's `prometheus`) for tests:
// started on 127.0.0.1 at a free port, as the current user, with a scratch
// configuration (scrape and evaluation interval 1 s, one job) and a scratch
// TSDB, read back through its HTTP query API, stopped with SIGTERM.
//
//   if (!fmtest::prometheus_present()) return;  // Skipped; under CI=true a failure
//   fmtest::PrometheusServer prom(dir, "service", {"127.0.0.1:9464"});
//   CHECK(fmtest::eventually([&] { return prom.by_instance("up")["127.0.0.1:9464"] == 1; }, 30s));
//
// A Prometheus that does not become ready fails the test (REQUIRE) with its
// stderr. Thread-safety: one owner.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/promtool.h"  // promtool_check_metrics, for the tests that scrape
#include "support/temp_files.h"

namespace fmtest {

// GET http://127.0.0.1:<port><path> (5 s); nullopt unless it answered 200.
std::optional<std::string> http_get(int port, const std::string& path);

// Whether `prometheus` is on PATH; false is a skip, and under CI=true a failure.
bool prometheus_present();

// One series of a query's answer: its labels and value.
using PromSample = std::pair<std::map<std::string, std::string>, double>;

class PrometheusServer {
 public:
  // Scrapes `targets` ("host:port") as job `job`, every second. A port taken
  // before it binds: tried again on another (3 attempts).
  PrometheusServer(const TempDir& dir, const std::string& job, const std::vector<std::string>& targets);
  ~PrometheusServer();
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  // SIGTERM, then its exit code (0: a clean shutdown); the destructor does it too.
  int stop();
  // The instant vector `query` evaluates to now (empty on any error).
  std::vector<PromSample> query(const std::string& q) const;
  // `query`'s value per `instance` label.
  std::map<std::string, double> by_instance(const std::string& q) const;

 private:
  int port_ = 0;
  int pid_ = -1;
  int code_ = -1;
};

}  // namespace fmtest
