// ground_truth.h — what the loopback forge received, counted on the server side.
//
// Every request that reaches the forge is counted once, by the Host header it
// arrived with (lower-cased, `:port` kept — the same spelling as host_of() of
// the URL a client sent to), and by lane when the client named one in the
// kLaneHeader header. The headers of the first `record_limit` requests are
// kept so tests can check what a request carried (credentials, cookies).
// Every request is also counted by installation and the bucket it was charged
// to (or answered under), and by installation and the forge-clock instant it
// arrived, so a test can say "no request of installation X arrived inside
// [t0, t1)" exactly, however many requests were sent. Conditional requests
// (If-None-Match or If-Modified-Since sent) and answers 304 are counted by
// host and lane too, to hold a cache's revalidations against the meter's.
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

#include "forgemeter/clock.h"

namespace forgemeter::testforge {

struct ReceivedRequest {
  std::string host;  // Host header, lower-cased
  std::string method;
  std::string target;              // path and query as sent
  std::string lane;                // kLaneHeader's value, or "" when absent
  std::uint64_t installation = 0;  // `Bearer inst-<id>` or an installation token's; 0 = none
  int listener_port = 0;           // the forge port it arrived on
  bool tls = false;
  UtcMillis at{};            // the forge clock's now() when it arrived
  std::string resource;      // the bucket charged or answered under (core, search, code_search,
                             // graphql, gitlab); "" for Gitea, which keeps none; "app" for
                             // GitHub's /app/... (an App's own calls, never charged)
  bool conditional = false;  // it carried If-None-Match or If-Modified-Since
  std::vector<std::pair<std::string, std::string>> headers;  // as received, names as sent

  // Whether a header of this name (any case) arrived; its first value.
  bool has_header(std::string_view name) const;
  std::string header(std::string_view name) const;
};

// Per host and lane: requests that carried a condition, and answers 304 (to
// any request: a /status/304 too).
struct Conditionals {
  std::uint64_t sent = 0;
  std::uint64_t not_modified = 0;
  bool operator==(const Conditionals&) const = default;
};

class GroundTruth {
 public:
  explicit GroundTruth(std::size_t record_limit) : record_limit_(record_limit) {}

  void record(ReceivedRequest r, int remote_port);
  // The answer to a recorded request (by its Host, lower-cased, and lane) is `status`.
  void answered(const std::string& host, const std::string& lane, int status);

  std::uint64_t total() const;
  // Blocks until total() >= n (true) or `timeout` passed (false): for a request
  // the client gave up on, which the server may count only after that.
  bool await_total(std::uint64_t n, std::chrono::milliseconds timeout) const;
  std::map<std::string, std::uint64_t> by_host() const;
  std::map<std::string, std::uint64_t> by_lane() const;  // "" = no lane header
  std::map<std::pair<std::string, std::string>, std::uint64_t> by_host_and_lane() const;
  std::map<std::pair<std::string, std::string>, Conditionals> conditionals_by_host_and_lane() const;
  // Requests by (installation, resource).
  std::map<std::pair<std::uint64_t, std::string>, std::uint64_t> by_installation_and_resource() const;
  // How many requests of `installation` arrived inside [from, to) of the forge clock.
  std::uint64_t received(std::uint64_t installation, UtcMillis from, UtcMillis to) const;
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
  std::map<std::pair<std::uint64_t, std::string>, std::uint64_t> by_installation_resource_;
  std::map<std::pair<std::string, std::string>, Conditionals> conditionals_;
  // (installation, arrival in epoch milliseconds) -> requests: one entry per
  // busy millisecond, so exact without keeping every request.
  std::map<std::pair<std::uint64_t, std::int64_t>, std::uint64_t> arrivals_;
  std::vector<ReceivedRequest> records_;
  std::set<std::pair<int, int>> connections_;  // (listener port, client port)
};

}  // namespace forgemeter::testforge
