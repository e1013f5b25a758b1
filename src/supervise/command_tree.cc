#include "supervise/command_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "supervise/sentinel.h"

namespace forgemeter::supervise {

namespace {

// Why the file at `p` cannot be exec'd; nullopt when it can, "" when there is none.
std::optional<std::string> problem(const std::string& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return std::string();
  if (S_ISDIR(st.st_mode)) return std::string("it is a directory");
  if (!S_ISREG(st.st_mode)) return std::string("it is not a regular file");
  if (::access(p.c_str(), X_OK) != 0) return std::string("it is not executable (permission denied)");
  return std::nullopt;
}

// The PATH search of execvp: the first usable candidate, else the first
// problem met (an existing file that cannot be run), else "" (none found).
std::pair<std::optional<std::string>, std::string> search(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    auto why = problem(name);
    return why ? std::pair(std::optional<std::string>(), *why) : std::pair(std::optional(name), std::string());
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  std::string first_problem;
  std::size_t at = 0;
  while (at <= dirs.size()) {
    std::size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(at, end - at);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    auto why = problem(candidate);
    if (!why) return {candidate, {}};
    if (first_problem.empty() && !why->empty()) first_problem = candidate + ": " + *why;
    at = end + 1;
  }
  return {std::nullopt, first_problem};
}

}  // namespace

std::optional<std::string> find_program(const std::string& name) { return search(name).first; }

std::optional<Unrunnable> unrunnable(const std::string& name) {
  auto [found, why] = search(name);
  if (found) return std::nullopt;
  if (why.empty()) return Unrunnable{127, name.find('/') != std::string::npos ? "no such file" : "not found on PATH"};
  return Unrunnable{126, why};
}

namespace {

int exit_code(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

bool named(std::string_view kv, std::string_view key) {
  return kv.size() > key.size() && kv.substr(0, key.size()) == key && kv[key.size()] == '=';
}

}  // namespace

namespace {

// What the child execs: its arguments and environment, built before fork()
// (after it, only async-signal-safe calls). Not copied: the pointers are
// into its own strings.
class ChildImage {
 public:
  ChildImage(const std::vector<std::string>& argv, const CommandTree::Env& extra_env,
             const std::vector<std::string>& drop_env)
      : arg_store_(argv) {
    for (char** e = environ; *e != nullptr; ++e) {
      std::string_view kv(*e);
      bool drop = false;
      for (const auto& [k, v] : extra_env) drop = drop || named(kv, k);
      for (const auto& k : drop_env) drop = drop || named(kv, k);
      if (!drop) env_store_.emplace_back(kv);
    }
    for (const auto& [k, v] : extra_env) env_store_.push_back(k + "=" + v);
    for (auto& s : env_store_) envp_.push_back(s.data());
    envp_.push_back(nullptr);
    for (auto& s : arg_store_) args_.push_back(s.data());
    args_.push_back(nullptr);
  }
  ChildImage(const ChildImage&) = delete;
  ChildImage& operator=(const ChildImage&) = delete;

  char* const* args() const { return args_.data(); }
  char* const* envp() const { return envp_.data(); }

 private:
  std::vector<std::string> env_store_, arg_store_;
  std::vector<char*> envp_, args_;
};

// The child, after fork(): a group of its own, the signals as a new program
// has them, and CMD exec'd once the sentinel wrote its byte to `barrier`
// (EOF: forgemeter or the sentinel died first, do not run).
[[noreturn]] void exec_when_guarded(const int barrier[2], const std::string& program, const ChildImage& image) {
  ::setpgid(0, 0);
  ::close(barrier[1]);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s : {SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT, SIGCHLD}) ::sigaction(s, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  char go = 0;
  ssize_t got;
  do {
    got = ::read(barrier[0], &go, 1);
  } while (got < 0 && errno == EINTR);
  if (got != 1) ::_exit(127);
  ::execve(program.c_str(), image.args(), image.envp());
  ::_exit(errno == ENOENT ? 127 : 126);  // as shells: gone since the check, or found but not runnable
}

}  // namespace

CommandTree::CommandTree(const std::vector<std::string>& argv, const Env& extra_env,
                         const std::vector<std::string>& drop_env, std::optional<SteadyTime> deadline) {
  if (argv.empty()) throw std::invalid_argument("CommandTree: no command given");
  auto program = find_program(argv[0]);
  if (!program)
    throw StartError(fmt::format("cannot run '{}': not found or not executable; check the command and PATH", argv[0]));
  // Orphans of the tree come to this process, not to init (process-wide, idempotent).
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const ChildImage image(argv, extra_env, drop_env);

  // CMD waits on `barrier` until the sentinel is armed: no code of CMD runs
  // unguarded.
  int barrier[2];
  if (::pipe2(barrier, O_CLOEXEC) != 0)
    throw StartError(fmt::format("cannot start '{}': {}", argv[0], std::strerror(errno)));
  pid_ = ::fork();
  if (pid_ < 0) {
    int e = errno;
    ::close(barrier[0]);
    ::close(barrier[1]);
    throw StartError(fmt::format("cannot start '{}': {}", argv[0], std::strerror(e)));
  }
  if (pid_ == 0) exec_when_guarded(barrier, *program, image);
  ::setpgid(pid_, pid_);  // also here, so that signal() cannot race the child's own setpgid
  ::close(barrier[0]);
  arm_sentinel(barrier[1], deadline, argv[0]);
  pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

void CommandTree::arm_sentinel(int barrier, std::optional<SteadyTime> deadline, const std::string& what) {
  // The deadlines' pipe, made after CMD's fork so that CMD never holds it;
  // the first deadline is in it before the sentinel (and so CMD) runs.
  int deadlines[2];
  if (::pipe2(deadlines, O_CLOEXEC | O_NONBLOCK) != 0) {
    deadlines[0] = deadlines[1] = -1;
    sentinel_ = -1;
  } else {
    deadline_fd_ = deadlines[1];
    if (deadline) guard_until(*deadline);
    sentinel_ = start_sentinel(pid_, barrier, deadlines[0]);
  }
  const int sentinel_errno = errno;
  ::close(barrier);  // CMD now starts once the sentinel wrote its byte, or gets EOF if it died
  if (deadlines[0] >= 0) ::close(deadlines[0]);
  if (sentinel_ >= 0) return;
  ::kill(pid_, SIGKILL);
  reap();
  while (!status_ && ::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  if (deadline_fd_ >= 0) ::close(deadline_fd_);
  throw StartError(fmt::format("cannot start the sentinel for '{}': {}", what, std::strerror(sentinel_errno)));
}

CommandTree::~CommandTree() {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!empty() && std::chrono::steady_clock::now() < until) {
    signal(SIGKILL);
    wait_for(std::chrono::milliseconds(5));
  }
  stop_sentinel();
  if (deadline_fd_ >= 0) ::close(deadline_fd_);
  if (pidfd_ >= 0) ::close(pidfd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void CommandTree::stop_sentinel() {
  if (sentinel_ <= 0) return;
  ::kill(sentinel_, SIGKILL);
  while (::waitpid(sentinel_, nullptr, 0) < 0 && errno == EINTR) {
  }
  sentinel_ = -1;
}

bool CommandTree::guard_until(SteadyTime deadline) {
  const std::int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
  ssize_t put;
  do {
    put = ::write(deadline_fd_, &ns, sizeof ns);  // one write of 8 bytes: atomic on a pipe
  } while (put < 0 && errno == EINTR);
  return put == static_cast<ssize_t>(sizeof ns);
}

void CommandTree::reap() {
  for (;;) {
    int st = 0;
    pid_t r = ::waitpid(-1, &st, WNOHANG);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return;  // none exited yet, or no child at all
    if (r == pid_) status_ = exit_code(st);
    if (r == sentinel_) sentinel_ = -1;  // someone else killed it: the tree is unguarded
  }
}

std::vector<pid_t> CommandTree::children_outside_group() {
  std::vector<pid_t> out;
  DIR* tasks = ::opendir("/proc/self/task");
  if (tasks == nullptr) {
    children_known_ = false;
    return out;
  }
  while (dirent* t = ::readdir(tasks)) {
    if (t->d_name[0] == '.') continue;
    std::ifstream in(std::string("/proc/self/task/") + t->d_name + "/children");
    if (!in) {
      children_known_ = false;
      continue;
    }
    for (pid_t c; in >> c;)
      if (c != sentinel_ && ::getpgid(c) != pid_) out.push_back(c);
  }
  ::closedir(tasks);
  return out;
}

void CommandTree::signal(int sig) {
  sig_ = sig;
  told_.clear();
  if (!group_gone_ && ::kill(-pid_, sig) != 0 && errno == ESRCH) group_gone_ = true;
  for (pid_t c : children_outside_group()) tell(c);
}

// A child of ours outside G left it (setsid, setpgid) and was orphaned; when
// it leads a group of its own, its descendants are likely in that group: the
// whole group gets the signal. Not yet reaped, its pid (and so that group's
// id) cannot have been reused.
void CommandTree::tell(pid_t child) {
  if (::getpgid(child) == child)
    ::kill(-child, sig_);
  else
    ::kill(child, sig_);
  told_.push_back(child);
}

bool CommandTree::empty() {
  reap();
  if (!group_gone_ && ::kill(-pid_, 0) != 0 && errno == ESRCH) group_gone_ = true;
  return group_gone_ && children_outside_group().empty();
}

void CommandTree::wake() {
  std::uint64_t one = 1;
  [[maybe_unused]] auto r = ::write(wake_fd_, &one, sizeof one);
}

void CommandTree::wait_for(std::chrono::milliseconds timeout) {
  reap();
  if (sig_ != 0) {
    for (pid_t c : children_outside_group())
      if (std::find(told_.begin(), told_.end(), c) == told_.end()) tell(c);
  }
  // A failed pidfd (-1), or CMD's once it was reaped, is ignored: the timeout polls.
  struct pollfd fds[2] = {{status_ ? -1 : pidfd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  int n = ::poll(fds, 2, static_cast<int>(timeout.count()));
  if (n > 0 && (fds[1].revents & POLLIN) != 0) {
    std::uint64_t v;
    [[maybe_unused]] auto r = ::read(wake_fd_, &v, sizeof v);
  }
  reap();
}

}  // namespace forgemeter::supervise
