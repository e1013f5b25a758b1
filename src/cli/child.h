// child.h — one supervised child process (the CMD of `lease run`).
//
// The child runs in a process group of its own (so a terminal's Ctrl-C
// reaches forgemeter alone, which forwards it) and gets SIGKILL if the thread
// that started it dies (PR_SET_PDEATHSIG), so a forgemeter killed with
// SIGKILL never leaves its CMD running past it. Signals go to the whole group.
//
// Thread-safety: signal() and wait_for() may be called from different threads.
// Errors: the constructor throws Failure (with what to do) when CMD cannot be
// started (not found, not executable).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace forgemeter::cli {

class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& extra_env);
  ~Child();  // SIGKILLs a child still running and reaps it
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  // Sends `sig` to the child's process group (no-op once it was reaped).
  void signal(int sig);
  // Waits until the child exits or `timeout` passes, or wake() is called.
  // Returns its exit code (128 + signal number when a signal ended it) once
  // it has exited.
  std::optional<int> wait_for(std::chrono::milliseconds timeout);
  // Makes a wait_for() in progress return early (from any thread, or a signal thread).
  void wake();

 private:
  std::optional<int> reap(bool block);
  pid_t pid_ = -1;
  int pidfd_ = -1;
  int wake_fd_ = -1;
  std::optional<int> status_;
};

// Resolves `name` like execvp does (PATH search when it has no '/'); nullopt when absent.
std::optional<std::string> find_program(const std::string& name);

}  // namespace forgemeter::cli
