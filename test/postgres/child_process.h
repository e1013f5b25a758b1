// Test helper: a child process whose stdout lines are collected, each stamped
// with the monotonic clock when read. Thread-safe; one owner.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pgtest {

class ChildProcess {
 public:
  // Starts argv[0] (a path) with argv; throws std::runtime_error on failure.
  explicit ChildProcess(std::vector<std::string> argv);
  ~ChildProcess();  // SIGKILLs a child still running, then reaps it
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  void signal(int sig) const;
  // Waits for the child to exit (at most `timeout`); its exit code, or -1
  // when it did not exit or died of a signal.
  int wait_exit(std::chrono::milliseconds timeout);

  // Lines read so far.
  std::vector<std::string> lines() const;
  // Waits until some line satisfies `pred`; returns it, or "" after `timeout`.
  std::string await_line(const std::function<bool(const std::string&)>& pred, std::chrono::milliseconds timeout);

 private:
  void read_loop(int fd);

  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
  std::thread reader_;
};

}  // namespace pgtest
