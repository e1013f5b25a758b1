#include "support/etcd_cluster.h"

#include <curl/curl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "support/curl_body.h"
#include "support/free_port.h"
#include "support/process.h"
#include "support/temp_files.h"

namespace fmtest {

bool EtcdCluster::available() { return !find_on_path("etcd").empty(); }

EtcdCluster::EtcdCluster(int members, EtcdTls tls, std::vector<std::string> extra)
    : tls_(std::move(tls)), extra_(std::move(extra)) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/forgemeter-etcd.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("etcd cluster: mkdtemp failed");
  dir_ = pattern;
  for (int i = 0; i < members; ++i)
    members_.push_back({"m" + std::to_string(i), free_loopback_port(), free_loopback_port(), -1});
  for (int i = 0; i < members; ++i) spawn(i, true);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (int i = 0; i < members; ++i)
    while (!healthy(i)) {
      if (std::chrono::steady_clock::now() > deadline) {
        const std::string why = "etcd cluster: member " + std::to_string(i) + " not healthy in 30 s\n" + logs();
        for (int j = 0; j < members; ++j) kill(j);
        std::filesystem::remove_all(dir_);
        throw std::runtime_error(why);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

EtcdCluster::~EtcdCluster() {
  for (int i = 0; i < size(); ++i) {
    if (running(i)) ::kill(members_[i].pid, SIGCONT);  // a stopped member dies of SIGKILL too, but reap it surely
    kill(i);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string EtcdCluster::endpoint(int i) const {
  return std::string(tls_.cert.empty() ? "http" : "https") + "://127.0.0.1:" + std::to_string(members_[i].client_port);
}

std::string EtcdCluster::uri(const std::string& prefix) const {
  std::string out = tls_.cert.empty() ? "etcd://" : "etcds://";
  for (int i = 0; i < size(); ++i) out += (i ? ",127.0.0.1:" : "127.0.0.1:") + std::to_string(members_[i].client_port);
  return out + prefix;
}

void EtcdCluster::spawn(int i, bool fresh) {
  std::string cluster;
  for (const auto& m : members_)
    cluster += (cluster.empty() ? "" : ",") + m.name + "=http://127.0.0.1:" + std::to_string(m.peer_port);
  const Member& m = members_[i];
  const std::string client = endpoint(i), peer = "http://127.0.0.1:" + std::to_string(m.peer_port);
  std::vector<std::string> argv{find_on_path("etcd"),
                                "--name=" + m.name,
                                "--data-dir=" + dir_ + "/" + m.name,
                                "--listen-client-urls=" + client,
                                "--advertise-client-urls=" + client,
                                "--listen-peer-urls=" + peer,
                                "--initial-advertise-peer-urls=" + peer,
                                "--initial-cluster=" + cluster,
                                "--initial-cluster-token=forgemeter-test",
                                std::string("--initial-cluster-state=") + (fresh ? "new" : "existing"),
                                "--heartbeat-interval=50",
                                "--election-timeout=500",
                                "--logger=zap",
                                "--log-outputs=" + dir_ + "/" + m.name + ".log"};
  if (!tls_.cert.empty()) {
    argv.push_back("--cert-file=" + tls_.cert);
    argv.push_back("--key-file=" + tls_.key);
    argv.push_back("--trusted-ca-file=" + tls_.ca);
    if (tls_.client_cert_auth) argv.push_back("--client-cert-auth");
  }
  argv.insert(argv.end(), extra_.begin(), extra_.end());
  const std::string out = dir_ + "/" + m.name + ".out";
  members_[i].pid = spawn_process(argv, {.out_path = out, .append = true}).pid;
}

void EtcdCluster::kill(int i) {
  Member& m = members_[i];
  if (m.pid <= 0) return;
  ::kill(m.pid, SIGKILL);
  wait_exit(m.pid);
  m.pid = -1;
}

void EtcdCluster::stop(int i) { ::kill(members_[i].pid, SIGSTOP); }
void EtcdCluster::resume(int i) { ::kill(members_[i].pid, SIGCONT); }

void EtcdCluster::restart(int i) {
  if (running(i)) return;
  spawn(i, false);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!healthy(i) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

std::vector<int> EtcdCluster::kill_quorum() {
  const int raft_leader = leader();
  if (raft_leader < 0) throw std::runtime_error("etcd cluster: no Raft leader to kill\n" + logs());
  std::vector<int> killed;
  for (int i = 0; i < size() && static_cast<int>(killed.size()) < size() / 2; ++i)
    if (i != raft_leader && running(i)) killed.push_back(i);
  killed.push_back(raft_leader);
  for (const int i : killed) kill(i);
  return killed;
}

std::string EtcdCluster::post(int i, const std::string& path, const std::string& body,
                              std::chrono::milliseconds timeout) const {
  CURL* h = curl_easy_init();
  if (h == nullptr) return {};
  const std::string url = endpoint(i) + path;
  std::string answer;
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_PROXY, "");
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  if (!tls_.ca.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, tls_.ca.c_str());
  if (tls_.client_cert_auth) {  // the members' certificate serves as the test's client certificate
    curl_easy_setopt(h, CURLOPT_SSLCERT, tls_.cert.c_str());
    curl_easy_setopt(h, CURLOPT_SSLKEY, tls_.key.c_str());
  }
  long status = 0;
  const CURLcode rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(h);
  return rc == CURLE_OK && status == 200 ? answer : std::string();
}

bool EtcdCluster::healthy(int i) const {
  // /health is a GET; a linearizable range of nothing proves the member serves with a leader.
  return post(i, "/v3/kv/range", R"({"key":"AA=="})", std::chrono::milliseconds(500)).find("header") !=
         std::string::npos;
}

int EtcdCluster::leader(std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  do {
    for (int i = 0; i < size(); ++i) {
      if (!running(i)) continue;
      const auto j = nlohmann::json::parse(post(i, "/v3/maintenance/status", "{}"), nullptr, false);
      if (!j.is_object() || !j.contains("leader") || !j.contains("header")) continue;
      const auto leader = j["leader"], me = j["header"].value("member_id", nlohmann::json());
      if (leader == me) return i;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (std::chrono::steady_clock::now() < deadline);
  return -1;
}

std::string EtcdCluster::logs() const {
  std::string out;
  for (const auto& m : members_) out += "--- " + m.name + "\n" + read_file(dir_ + "/" + m.name + ".out");
  return out;
}

}  // namespace fmtest
