// process.h — the test suite's one way to start and wait for a child process
// (the built `forgemeter`, a server a test needs, a helper program).
//
// One rule for what a child returns, everywhere: its exit status when it
// exited, or 128 + the signal's number when a signal killed it (as the shell
// and `forgemeter lease run` report it). A wait that runs out of time returns
// -1 (the child is still running); -2 when there is no such child.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace fmtest {

using Env = std::vector<std::pair<std::string, std::string>>;  // added to the current environment

// A waitpid() status by the rule above.
int exit_code(int wait_status);

struct ProcessResult {
  int exit_code = -1;  // by the rule above
  std::string out;
  std::string err;
  bool timed_out = false;
};

struct ProcessOptions {
  std::string stdin_data;
  Env env;
  std::chrono::milliseconds timeout{60'000};  // then SIGKILL, timed_out = true
};

// Runs argv to its end, feeding stdin_data and collecting stdout and stderr.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// A child left running; stdin is /dev/null.
struct Spawned {
  int pid = -1;
  std::string out_path, err_path;
};
struct SpawnOptions {
  std::string out_path;  // stdout into this file ("" = this process's stdout)
  std::string err_path;  // stderr into this file ("" = where stdout goes)
  bool append = false;   // append to the files rather than truncate them
  std::string dir;       // the child's working directory ("" = this process's)
  Env env;
};
// Throws std::runtime_error when argv[0] (a path) cannot be started.
Spawned spawn_process(const std::vector<std::string>& argv, const SpawnOptions& options);
Spawned spawn_process(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path,
                      const Env& env = {});
// Waits for a child (in real time, at most `timeout`): its code by the rule above.
int wait_exit(int pid, std::chrono::milliseconds timeout);
// Waits for a child however long it takes: its code by the rule above.
int wait_exit(int pid);
// SIGTERM, then its code; SIGKILL when it has not exited after `grace`.
int terminate_process(int pid, std::chrono::milliseconds grace = std::chrono::seconds(30));

// A child whose stdout lines are collected as they come (stderr is this
// process's). Thread-safe; one owner. The destructor SIGKILLs a child still
// running and reaps it.
class LineChild {
 public:
  // Starts argv[0] (a path); throws std::runtime_error on failure.
  explicit LineChild(const std::vector<std::string>& argv);
  ~LineChild();
  LineChild(const LineChild&) = delete;
  LineChild& operator=(const LineChild&) = delete;

  void signal(int sig) const;
  // Waits for the child to exit (at most `timeout`): its code by the rule above.
  int wait_exit(std::chrono::milliseconds timeout);

  // Lines read so far.
  std::vector<std::string> lines() const;
  // Waits until some line satisfies `pred`; returns it, or "" after `timeout`.
  std::string await_line(const std::function<bool(const std::string&)>& pred, std::chrono::milliseconds timeout);

 private:
  void read_loop(int fd);

  pid_t pid_ = -1;
  int code_ = -1;  // once reaped
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
  std::thread reader_;
};

// The absolute path of `program` found on PATH, or "" when it is not there.
std::string find_on_path(const std::string& program);

}  // namespace fmtest
