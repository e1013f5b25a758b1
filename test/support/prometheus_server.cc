#include "support/prometheus_server.h"

#include <curl/curl.h>
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "support/curl_body.h"
#include "support/eventually.h"
#include "support/free_port.h"
#include "support/process.h"
#include "support/skips.h"

using namespace std::chrono;

namespace fmtest {

std::optional<std::string> http_get(int port, const std::string& path) {
  std::string body;
  CURL* h = curl_easy_init();
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + path;
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 5'000L);
  long status = 0;
  if (curl_easy_perform(h) == CURLE_OK) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(h);
  if (status != 200) return std::nullopt;
  return body;
}

bool prometheus_present() {
  if (!find_on_path("prometheus").empty()) return true;
  const char* ci = std::getenv("CI");
  REQUIRE_MESSAGE((ci == nullptr || std::string(ci) != "true"),
                  "CI=true: no prometheus on PATH (Debian package prometheus); CI runs every test");
  skipped("no prometheus on PATH (Debian package prometheus): no real server scraped the targets");
  return false;
}

PrometheusServer::PrometheusServer(const TempDir& dir, const std::string& job,
                                   const std::vector<std::string>& targets) {
  std::string list;
  for (const std::string& t : targets) list += (list.empty() ? "'" : ", '") + t + "'";
  write_file(dir.file("prometheus.yml"),
             "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
             "scrape_configs:\n  - job_name: " +
                 job + "\n    static_configs:\n      - targets: [" + list + "]\n");
  std::string err;
  bool ready = false;
  for (int attempt = 0; attempt < 3 && !ready; ++attempt) {
    do port_ = free_loopback_port();  // never a target's port (a target may not be bound yet)
    while (port_ > 0 && list.find(":" + std::to_string(port_) + "'") != std::string::npos);
    REQUIRE(port_ > 0);
    err = dir.file("prometheus-" + std::to_string(attempt) + ".err");
    pid_ = spawn_process({find_on_path("prometheus"), "--config.file=" + dir.file("prometheus.yml"),
                          "--storage.tsdb.path=" + dir.file("tsdb-" + std::to_string(attempt)),
                          "--web.listen-address=127.0.0.1:" + std::to_string(port_), "--log.level=warn"},
                         dir.file("prometheus.out"), err)
               .pid;
    // ready, or exited (a port taken, a bad flag): 30 s for a loaded machine's TSDB start
    eventually(
        [&] {
          if (http_get(port_, "/-/ready")) return true;
          if (wait_exit(pid_, 0ms) == -1) return false;
          pid_ = -1;  // exited and reaped
          return true;
        },
        seconds(30));
    ready = pid_ > 0 && http_get(port_, "/-/ready").has_value();
    if (!ready && pid_ > 0) stop();
  }
  REQUIRE_MESSAGE(ready, "Prometheus did not become ready; its stderr:\n" << read_file(err));
}

PrometheusServer::~PrometheusServer() { stop(); }

int PrometheusServer::stop() {
  if (pid_ > 0) {
    code_ = terminate_process(pid_);
    pid_ = -1;
  }
  return code_;
}

std::vector<PromSample> PrometheusServer::query(const std::string& q) const {
  char* esc = curl_easy_escape(nullptr, q.c_str(), static_cast<int>(q.size()));
  const std::optional<std::string> body = http_get(port_, "/api/v1/query?query=" + std::string(esc));
  curl_free(esc);
  std::vector<PromSample> out;
  if (!body) return out;
  const nlohmann::json j = nlohmann::json::parse(*body, nullptr, false);
  if (j.is_discarded() || j.value("status", "") != "success") return out;
  for (const auto& r : j["data"]["result"])
    out.emplace_back(r["metric"].get<std::map<std::string, std::string>>(),
                     std::stod(r["value"][1].get<std::string>()));
  return out;
}

std::map<std::string, double> PrometheusServer::by_instance(const std::string& q) const {
  std::map<std::string, double> out;
  for (const auto& [labels, v] : query(q)) out[labels.count("instance") ? labels.at("instance") : ""] = v;
  return out;
}

}  // namespace fmtest
