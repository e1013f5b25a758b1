// heartbeats.h — what the processes of a tree (test/supervise/tree_worker.cc) wrote,
// and whether they still run.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace fmtest {

// One process's beats: "<pid> <CLOCK_MONOTONIC ns>[ TERM]" lines in DIR/hb.<pid>.
struct Beats {
  std::int64_t first = 0, last = 0;
  std::optional<std::int64_t> term;  // when it got SIGTERM
  std::size_t count = 0;
};

// Every hb.<pid> file of `dir` (complete lines only), by pid.
std::map<pid_t, Beats> read_heartbeats(const std::string& dir);

// CLOCK_MONOTONIC (what the workers stamp, and std::chrono::steady_clock), in ns.
std::int64_t mono_ns();

// The worker `pid` still runs: /proc/<pid> exists, is fm_tree_worker, and is
// neither a zombie nor dead (an orphan's zombie may never be reaped here).
bool worker_alive(pid_t pid);

// How many of the workers in `beats` still run.
std::size_t alive_count(const std::map<pid_t, Beats>& beats);
// How many of them got SIGTERM.
std::size_t termed_count(const std::map<pid_t, Beats>& beats);

// Earliest first beat and latest last beat over all processes (0 when none).
std::int64_t earliest_beat(const std::map<pid_t, Beats>& beats);
std::int64_t latest_beat(const std::map<pid_t, Beats>& beats);

}  // namespace fmtest
