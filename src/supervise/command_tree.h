// command_tree.h — the CMD of `lease run` and every process it starts.
//
// The tree is CMD and all its descendants. The kernel keeps it together:
//  * CMD leads a process group G of its own (G = CMD's pid), which its
//    children, grandchildren, ... join unless they move out (setsid, setpgid).
//    Signals go to the whole of G.
//  * forgemeter is a child subreaper (PR_SET_CHILD_SUBREAPER): the orphans of
//    the tree (a worker whose parent shell exited) are re-parented to
//    forgemeter instead of init, so while forgemeter runs every process CMD
//    started, however deep and whatever its group, stays its descendant; it
//    reaps them (no zombie under an init that never reaps keeps G alive), and
//    a child of its own outside G is a process that left G: it is signalled
//    one by one (with its own group when it leads one).
//  * a sentinel (sentinel.h) SIGKILLs G when forgemeter dies, however, and
//    at the deadline last given to guard_until(), on its own: a stalled
//    forgemeter (SIGSTOP) does not stretch the tree's life past it.
// What escapes (README.md, lease run): after forgemeter is SIGKILLed, a
// descendant that had left G (setsid, setpgid) survives; while forgemeter
// runs, nothing does (short of a process it may not signal, e.g. setuid).
//
// The tree is empty when no process of G is left (kill(-G, 0) says ESRCH)
// and forgemeter has no child left but the sentinel (its children, read from
// /proc/self/task/*/children; without that file, G alone decides).
//
// Thread-safety: one thread calls everything but wake(), which any thread (a
// signal thread) may call. That thread is the only one that reaps children:
// this process must have no other children.
// Errors: the constructor throws StartError (one line saying what to do) when
// CMD cannot be started (not found, not executable, fork failed), and
// std::invalid_argument for an empty argv.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace forgemeter::supervise {

// CMD could not be started; nothing of its tree runs.
struct StartError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CommandTree {
 public:
  using Env = std::vector<std::pair<std::string, std::string>>;
  using SteadyTime = std::chrono::steady_clock::time_point;  // CLOCK_MONOTONIC, as the sentinel reads it
  // Starts argv (PATH search for argv[0]) with this process's environment,
  // minus the variables named in `drop_env`, plus `extra_env`; with a
  // `deadline`, the sentinel SIGKILLs G then unless guard_until() moves it.
  CommandTree(const std::vector<std::string>& argv, const Env& extra_env, const std::vector<std::string>& drop_env,
              std::optional<SteadyTime> deadline = std::nullopt);
  ~CommandTree();  // SIGKILLs what is left of the tree, waits for it (at most 5 s), stops the sentinel
  CommandTree(const CommandTree&) = delete;
  CommandTree& operator=(const CommandTree&) = delete;

  pid_t pid() const { return pid_; }  // CMD's pid, also its group's id
  // CMD's exit code once it has exited (128 + signal number when a signal ended it).
  std::optional<int> status() const { return status_; }
  // Sends `sig` to the tree: to G, and to every process found outside G that
  // is a child of this one — also to those found by later calls of
  // wait_for(), until the next signal().
  void signal(int sig);
  // Reaps, signals the newly found, and waits until CMD exits, wake() is
  // called or `timeout` passes.
  void wait_for(std::chrono::milliseconds timeout);
  // True when no process of the tree is left (reaps first).
  bool empty();
  // Whether the sentinel still runs (false: someone SIGKILLed it).
  bool guarded() const { return sentinel_ > 0; }
  // Makes a wait_for() in progress return early (from any thread).
  void wake();
  // The sentinel SIGKILLs G at `deadline` (CLOCK_MONOTONIC), whatever this
  // process does meanwhile, unless a later call moves it (earlier or later:
  // the latest call holds). False when it could not be told (the pipe full:
  // the deadline before holds).
  bool guard_until(SteadyTime deadline);

 private:
  // Starts the sentinel, which lets CMD start through `barrier` (the write
  // end; closed here); on failure, CMD is killed and StartError thrown.
  void arm_sentinel(int barrier, std::optional<SteadyTime> deadline, const std::string& what);
  void reap();
  std::vector<pid_t> children_outside_group();
  void tell(pid_t child);
  void stop_sentinel();

  pid_t pid_ = -1;
  pid_t sentinel_ = -1;
  int pidfd_ = -1;
  int wake_fd_ = -1;
  int deadline_fd_ = -1;  // the write end of the sentinel's deadlines
  std::optional<int> status_;
  bool group_gone_ = false;     // kill(-G, 0) said ESRCH: G's id is never used again
  bool children_known_ = true;  // /proc/self/task/*/children could be read
  int sig_ = 0;                 // the last signal() and who outside G got it
  std::vector<pid_t> told_;
};

// Why a command cannot be run, as shells, env and timeout exit: `code` 127
// when it is not found, 126 when it is found but cannot be executed (a
// directory, no execute permission); `why` says which, in words.
struct Unrunnable {
  int code;
  std::string why;
};
// nullopt when find_program() finds `name`.
std::optional<Unrunnable> unrunnable(const std::string& name);

// Resolves `name` like execvp does (PATH search when it has no '/'); nullopt when absent.
std::optional<std::string> find_program(const std::string& name);

}  // namespace forgemeter::supervise
