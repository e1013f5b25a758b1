#include "cli/child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "cli/errors.h"

extern char** environ;

namespace forgemeter::cli {

std::optional<std::string> find_program(const std::string& name) {
  auto usable = [](const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) return usable(name) ? std::optional(name) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t at = 0;
  while (at <= dirs.size()) {
    std::size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(at, end - at);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (usable(candidate)) return candidate;
    at = end + 1;
  }
  return std::nullopt;
}

Child::Child(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& extra_env) {
  if (argv.empty()) throw UsageError("no command given after '--'");
  auto program = find_program(argv[0]);
  if (!program) throw Failure(fmt::format("cannot run '{}': not found or not executable; check the command and PATH", argv[0]));

  // Everything the child needs is built before fork(): after it, only
  // async-signal-safe calls.
  std::vector<std::string> env_store;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view kv(*e);
    bool replaced = false;
    for (const auto& [k, v] : extra_env) replaced = replaced || (kv.size() > k.size() && kv.substr(0, k.size()) == k && kv[k.size()] == '=');
    if (!replaced) env_store.emplace_back(kv);
  }
  for (const auto& [k, v] : extra_env) env_store.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_store = argv;
  for (auto& s : arg_store) args.push_back(s.data());
  args.push_back(nullptr);
  sigset_t none;
  sigemptyset(&none);
  const pid_t parent = ::getpid();

  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  pid_ = ::fork();
  if (pid_ < 0) throw Failure(fmt::format("cannot start '{}': {}", argv[0], std::strerror(errno)));
  if (pid_ == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before the line above
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int s : {SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT}) ::sigaction(s, &dfl, nullptr);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(program->c_str(), args.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid_, pid_);  // also here, so signal() cannot race the child's own setpgid
  pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
}

Child::~Child() {
  if (!status_) {
    signal(SIGKILL);
    reap(true);
  }
  if (pidfd_ >= 0) ::close(pidfd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void Child::signal(int sig) {
  if (status_ || pid_ <= 0) return;
  if (::kill(-pid_, sig) != 0) ::kill(pid_, sig);
}

void Child::wake() {
  std::uint64_t one = 1;
  [[maybe_unused]] auto r = ::write(wake_fd_, &one, sizeof one);
}

std::optional<int> Child::reap(bool block) {
  if (status_) return status_;
  int st = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &st, block ? 0 : WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == pid_) status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return status_;
}

std::optional<int> Child::wait_for(std::chrono::milliseconds timeout) {
  if (auto s = reap(false)) return s;
  struct pollfd fds[2] = {{pidfd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  int n = ::poll(fds, 2, static_cast<int>(timeout.count()));  // a failed pidfd (-1) is ignored: the timeout polls
  if (n > 0 && (fds[1].revents & POLLIN) != 0) {
    std::uint64_t v;
    [[maybe_unused]] auto r = ::read(wake_fd_, &v, sizeof v);
  }
  return reap(false);
}

}  // namespace forgemeter::cli
