// tree_fleet.h — `forgemeter lease run` candidates whose CMD is a tree of
// heartbeating workers (test/supervise/tree_worker.cc), one heartbeat directory each.
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <string>

#include "forgemeter_bin.h"
#include "supervise/heartbeats.h"

namespace fmtest {

// TTL 3 s: retry 1 s, grace TTL/6 = 500 ms, step-down D = S + 2.5 s.
inline constexpr std::chrono::milliseconds kTreeTtl{3000};
inline constexpr std::chrono::milliseconds kTreeGrace{500};
inline constexpr std::chrono::milliseconds kTreeStepDown{2500};

// bash → W0 → W1 (a grandchild) → W2 (the worker it forks); W2 keeps working
// 2 s after SIGTERM (longer than the grace), the others 200 ms.
// In a script, "$0" is the worker program and "$1" the heartbeat directory.
inline const std::string kChain = "\"$0\" \"$1\" linger=200 linger=200 linger=2000; true";

struct Candidate {
  std::string owner, dir;
  Spawned proc;
  int exit_code = -1;  // once waited for
  std::map<pid_t, Beats> beats() const { return read_heartbeats(dir); }
};

class TreeFleet {
 public:
  explicit TreeFleet(std::string store);
  // SIGKILLs every candidate still running and every worker still alive.
  ~TreeFleet();
  TreeFleet(const TreeFleet&) = delete;
  TreeFleet& operator=(const TreeFleet&) = delete;

  // Starts `lease run … -- bash -c SCRIPT fm_tree_worker DIR`.
  Candidate& start(const std::string& owner, const std::string& script);
  // Waits until `n` workers of `c` have beaten (and, with `alive`, that many still run).
  bool await_workers(const Candidate& c, std::size_t n, std::chrono::milliseconds timeout, bool alive = true) const;
  // Waits for `c` to exit (its code, -1 at the timeout) and records the code.
  int wait(Candidate& c, std::chrono::milliseconds timeout);
  const std::string& name() const { return name_; }

 private:
  TempDir tmp_;
  std::string store_, name_;
  std::deque<Candidate> candidates_;
};

// Polls `pred` every millisecond until it holds (true) or `timeout` passes.
template <class P>
bool poll_ms(P pred, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    timespec ms{0, 1'000'000};
    nanosleep(&ms, nullptr);
  }
  return true;
}

}  // namespace fmtest
