// Test support: a real etcd cluster on 127.0.0.1, started by the test that
// owns it and stopped (SIGKILL) with it.
//
// Each member has its own client and peer port and a data directory under
// TMPDIR (or /tmp); heartbeat 50 ms and election timeout 500 ms, so a leader
// is elected (and re-elected after a kill) within about a second. TLS: the
// members serve https with the given certificate (and demand client
// certificates signed by the CA when `client_cert_auth`). The etcd binary is
// found on PATH (Debian package etcd-server); without one, available() is
// false and a test skips itself loudly (support/skips.h).
//
// Not thread-safe: one owner; kill/stop/resume/restart from the test thread.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace fmtest {

struct EtcdTls {
  std::string ca, cert, key;  // PEM files: the CA, the members' certificate and key
  bool client_cert_auth = false;
};

class EtcdCluster {
 public:
  static bool available();  // an etcd binary on PATH; says so loudly when not

  // Starts `members` members and waits until every one answers /health.
  // Throws std::runtime_error (with the members' logs) on failure.
  // `extra`: more etcd flags for every member (e.g. --auth-token-ttl=1).
  explicit EtcdCluster(int members = 3, EtcdTls tls = {}, std::vector<std::string> extra = {});
  ~EtcdCluster();
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  int size() const { return static_cast<int>(members_.size()); }
  // "http://127.0.0.1:PORT" (https with TLS) of member i.
  std::string endpoint(int i) const;
  // etcd://127.0.0.1:P0,127.0.0.1:P1,…<prefix> (etcds:// with TLS; no TLS files).
  std::string uri(const std::string& prefix) const;

  void kill(int i);     // SIGKILL, and reaped
  void stop(int i);     // SIGSTOP: the member stalls with its connections open
  void resume(int i);   // SIGCONT
  void restart(int i);  // starts a killed member again on its data
  // The store stopped as a cluster loses it: a majority SIGKILLed, the Raft
  // leader last, so no write commits and no linearizable read answers, while
  // the rest still accept connections and hold each request to its
  // timeout. The members killed (restart() each to bring the quorum back).
  std::vector<int> kill_quorum();
  bool running(int i) const { return members_[i].pid > 0; }

  // The index of the Raft leader as the running members report it; -1 when
  // none reports one by `timeout`.
  int leader(std::chrono::milliseconds timeout = std::chrono::seconds(10)) const;
  // POST to member i's gateway (curl, blocking, `timeout`); the body, or "" on failure.
  std::string post(int i, const std::string& path, const std::string& body,
                   std::chrono::milliseconds timeout = std::chrono::seconds(2)) const;

 private:
  struct Member {
    std::string name;
    int client_port = 0, peer_port = 0;
    int pid = -1;
  };
  void spawn(int i, bool fresh);
  bool healthy(int i) const;
  std::string logs() const;

  std::string dir_;
  EtcdTls tls_;
  std::vector<std::string> extra_;
  std::vector<Member> members_;
};

}  // namespace fmtest
