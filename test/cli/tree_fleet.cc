#include "tree_fleet.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fmtest {

TreeFleet::TreeFleet(std::string store)
    : store_(std::move(store)), name_("cli-tree-" + std::to_string(getpid()) + "-" + std::to_string(mono_ns())) {}

TreeFleet::~TreeFleet() {
  for (auto& c : candidates_)
    if (c.exit_code == -1 && wait_exit(c.proc.pid, std::chrono::milliseconds(0)) == -1) {
      kill(c.proc.pid, SIGKILL);
      wait_exit(c.proc.pid, std::chrono::seconds(10));
    }
  for (auto& c : candidates_)
    for (const auto& [pid, beats] : c.beats())
      if (worker_alive(pid)) kill(pid, SIGKILL);  // a failed test leaves no worker behind
}

Candidate& TreeFleet::start(const std::string& owner, const std::string& script) {
  Candidate c;
  c.owner = owner;
  const std::string files = owner + "-" + std::to_string(candidates_.size());  // two may share an owner
  c.dir = tmp_.file(files);
  ::mkdir(c.dir.c_str(), 0755);
  c.proc = spawn_process({forgemeter_bin(), "lease", "run", "--store", store_, "--name", name_, "--owner", owner,
                          "--ttl", "3s", "--", "bash", "-c", script, FM_TREE_WORKER, c.dir},
                         tmp_.file(files + ".out"), tmp_.file(files + ".err"));
  candidates_.push_back(std::move(c));
  return candidates_.back();
}

bool TreeFleet::await_workers(const Candidate& c, std::size_t n, std::chrono::milliseconds timeout, bool alive) const {
  return poll_ms(
      [&] {
        auto b = c.beats();
        return b.size() >= n && (!alive || alive_count(b) >= n);
      },
      timeout);
}

int TreeFleet::wait(Candidate& c, std::chrono::milliseconds timeout) {
  c.exit_code = wait_exit(c.proc.pid, timeout);
  return c.exit_code;
}

}  // namespace fmtest
