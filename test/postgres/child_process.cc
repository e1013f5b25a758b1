#include "child_process.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

extern char** environ;

namespace pgtest {

ChildProcess::ChildProcess(std::vector<std::string> argv) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  posix_spawn_file_actions_addclose(&fa, fds[1]);
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  int rc = posix_spawn(&pid_, cargv[0], &fa, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    throw std::runtime_error("cannot start " + argv[0]);
  }
  reader_ = std::thread([this, fd = fds[0]] { read_loop(fd); });
}

ChildProcess::~ChildProcess() {
  if (!reaped_) {
    ::kill(pid_, SIGKILL);
    wait_exit(std::chrono::seconds(10));
  }
  if (reader_.joinable()) reader_.join();  // EOF once the child is gone
}

void ChildProcess::read_loop(int fd) {
  std::string partial;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    partial.append(buf, static_cast<std::size_t>(n));
    for (auto nl = partial.find('\n'); nl != std::string::npos; nl = partial.find('\n')) {
      {
        std::lock_guard lock(mu_);
        lines_.push_back(partial.substr(0, nl));
      }
      cv_.notify_all();
      partial.erase(0, nl + 1);
    }
  }
  ::close(fd);
}

void ChildProcess::signal(int sig) const {
  if (!reaped_) ::kill(pid_, sig);
}

int ChildProcess::wait_exit(std::chrono::milliseconds timeout) {
  auto until = std::chrono::steady_clock::now() + timeout;
  while (!reaped_) {
    pid_t r = ::waitpid(pid_, &status_, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      break;
    }
    if (std::chrono::steady_clock::now() >= until) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // polling the exit, not a timing
  }
  return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
}

std::vector<std::string> ChildProcess::lines() const {
  std::lock_guard lock(mu_);
  return lines_;
}

std::string ChildProcess::await_line(const std::function<bool(const std::string&)>& pred,
                                     std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  std::string found;
  cv_.wait_for(lock, timeout, [&] {
    for (const auto& l : lines_)
      if (pred(l)) {
        found = l;
        return true;
      }
    return false;
  });
  return found;
}

}  // namespace pgtest
