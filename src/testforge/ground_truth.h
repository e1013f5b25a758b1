// ground_truth.h — what the loopback forge received, counted on the server side.
//
// Every request that reaches the forge is counted once, by the Host header it
// arrived with (lower-cased, `:port` kept — the same spelling as host_of() of
// the URL a client sent to), and by lane when the client named one in the
// kLaneHeader header. The headers of the first `record_limit` requests are
// kept so tests can check what a request carried (credentials, cookies).
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace forgemeter::testforge {

struct ReceivedRequest {
  std::string host;    // Host header, lower-cased
  std::string method;
  std::string target;  // path and query as sent
  std::string lane;    // kLaneHeader's value, or "" when absent
  std::uint64_t installation = 0;  // from `Authorization: Bearer inst-<id>`; 0 = none
  int listener_port = 0;           // the forge port it arrived on
  bool tls = false;
  std::vector<std::pair<std::string, std::string>> headers;  // as received, names as sent

  // Whether a header of this name (any case) arrived; its first value.
  bool has_header(std::string_view name) const;
  std::string header(std::string_view name) const;
};

class GroundTruth {
 public:
  explicit GroundTruth(std::size_t record_limit) : record_limit_(record_limit) {}

  void record(ReceivedRequest r, int remote_port);

  std::uint64_t total() const;
  // Blocks until total() >= n (true) or `timeout` passed (false): for a request
  // the client gave up on, which the server may count only after that.
  bool await_total(std::uint64_t n, std::chrono::milliseconds timeout) const;
  std::map<std::string, std::uint64_t> by_host() const;
  std::map<std::string, std::uint64_t> by_lane() const;  // "" = no lane header
  std::map<std::pair<std::string, std::string>, std::uint64_t> by_host_and_lane() const;
  std::vector<ReceivedRequest> requests() const;
  // Distinct client ports seen: how many connections the clients opened.
  std::size_t connections() const;
  void clear();

 private:
  const std::size_t record_limit_;
  mutable std::mutex mu_;
  mutable std::condition_variable counted_;
  std::uint64_t total_ = 0;
  std::map<std::pair<std::string, std::string>, std::uint64_t> by_host_lane_;
  std::vector<ReceivedRequest> records_;
  std::set<std::pair<int, int>> connections_;  // (listener port, client port)
};

}  // namespace forgemeter::testforge
