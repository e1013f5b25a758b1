// serve_fleet.h — `forgemeter lease serve` replicas as real processes, each
// polled every 20 ms by a client that records every answer with its sending
// and its receipt on this machine's monotonic clock, and the check the
// elector promises: no two replicas' promises [send, send + valid_for_ms]
// ever overlap.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_files.h"

namespace fmtest {

struct PolledAnswer {
  int replica = 0;
  std::int64_t send_ns = 0, recv_ns = 0;  // steady_clock
  bool answered = false;                  // a 200 with JSON
  bool leader = false;
  std::int64_t valid_ms = 0;
  std::uint64_t term = 0;
  std::int64_t promise_end() const { return send_ns + valid_ms * 1'000'000; }
};

std::int64_t steady_ns();

// An event stream read on a thread of its own, everything kept.
class EventTap {
 public:
  explicit EventTap(const std::string& url);
  ~EventTap();  // ends the stream
  EventTap(const EventTap&) = delete;
  EventTap& operator=(const EventTap&) = delete;
  std::string text() const;

 private:
  mutable std::mutex mu_;
  std::string text_;
  std::atomic<bool> done_{false};
  std::thread reader_;
};

class ServeFleet {
 public:
  // `args`: the options every replica gets after `lease serve --store STORE`
  // (--ttl, --answer-validity, …); the name comes last.
  // `poll`: each replica polled every 20 ms; `owners`: --owner r<i> (else the host name).
  ServeFleet(std::string store, std::string name, std::vector<std::string> args, int replicas, bool poll = true,
             bool owners = true);
  ~ServeFleet();  // SIGKILLs what runs
  ServeFleet(const ServeFleet&) = delete;
  ServeFleet& operator=(const ServeFleet&) = delete;

  void start(int i);  // replica i ("r<i>"), its /healthz awaited
  void signal(int i, int sig);
  int wait_exit(int i, std::chrono::milliseconds timeout);
  bool running(int i) const { return pids_[i] > 0; }
  std::string err(int i) const;
  // POST /leases/NAME/resign to replica i's admin listener with the token: the status.
  long resign(int i, const std::string& token = "");
  const std::string& token() const { return token_; }
  std::string base(int i) const { return "http://127.0.0.1:" + std::to_string(ports_[i]); }
  std::string admin(int i) const { return "http://127.0.0.1:" + std::to_string(admin_ports_[i]); }

  // The replica whose latest answer (sent after `since`) says leader, if any.
  std::optional<int> leader(std::int64_t since = 0) const;
  // The first leader answer of replica i sent at or after `since`.
  std::optional<PolledAnswer> first_leader(int i, std::int64_t since) const;
  std::vector<PolledAnswer> answers() const;
  // "" when no two replicas' promises overlap; else the first overlap found.
  std::string overlaps() const;
  // The least time between one replica's promise ending and another's next
  // promise being sent (the margin the check had).
  std::int64_t closest_ns() const;

 private:
  std::string sweep(std::int64_t* closest) const;
  void poll(int i);

  std::string store_, name_;
  std::vector<std::string> args_;
  bool owners_;
  TempDir dir_;
  std::string token_;
  std::vector<int> ports_, admin_ports_;
  std::vector<pid_t> pids_;
  mutable std::mutex mu_;
  std::vector<PolledAnswer> answers_;
  std::atomic<bool> done_{false};
  std::vector<std::thread> pollers_;
};

}  // namespace fmtest
