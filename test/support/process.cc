#include "support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <thread>

extern char** environ;

namespace fmtest {

namespace {

// posix_spawn of argv with the current environment plus `env`; destroys `fa`.
// Returns posix_spawn's error (0 when started).
int spawn_with(posix_spawn_file_actions_t& fa, const std::vector<std::string>& argv, const Env& env, pid_t* pid) {
  std::vector<std::string> env_store;
  for (char** e = environ; *e != nullptr; ++e) env_store.emplace_back(*e);
  for (const auto& [k, v] : env) env_store.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_store = argv;
  for (auto& s : argv_store) args.push_back(s.data());
  args.push_back(nullptr);
  int rc = posix_spawn(pid, args[0], &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  return rc;
}

std::runtime_error cannot_start(const std::vector<std::string>& argv, int rc) {
  return std::runtime_error(std::string("cannot start ") + argv.at(0) + ": " + std::strerror(rc));
}

}  // namespace

int exit_code(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "/usr/bin:/bin";
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::string_view dir = rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    if (dir.empty()) continue;
    std::string candidate = std::string(dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  signal(SIGPIPE, SIG_IGN);  // a child that exits before reading its stdin
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);

  pid_t pid = -1;
  int rc = spawn_with(fa, argv, options.env, &pid);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (rc != 0) {
    ::close(in[1]);
    ::close(out[0]);
    ::close(err[0]);
    throw cannot_start(argv, rc);
  }
  fcntl(in[1], F_SETFL, O_NONBLOCK);

  ProcessResult r;
  std::size_t written = 0;
  int in_fd = in[1];
  if (options.stdin_data.empty()) {
    ::close(in_fd);
    in_fd = -1;
  }
  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  int open_fds = 2;
  struct pollfd fds[3];
  while (open_fds > 0) {
    int n = 0;
    int oi = -1, ei = -1, ii = -1;
    if (out[0] >= 0) {
      fds[n] = {out[0], POLLIN, 0};
      oi = n++;
    }
    if (err[0] >= 0) {
      fds[n] = {err[0], POLLIN, 0};
      ei = n++;
    }
    if (in_fd >= 0) {
      fds[n] = {in_fd, POLLOUT, 0};
      ii = n++;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      kill(pid, SIGKILL);
      r.timed_out = true;
      break;
    }
    if (poll(fds, static_cast<nfds_t>(n), static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    char buf[65536];
    auto drain = [&](int idx, int& fd, std::string& to) {
      if (idx < 0 || fds[idx].revents == 0) return;
      ssize_t got = ::read(fd, buf, sizeof buf);
      if (got > 0) {
        to.append(buf, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        ::close(fd);
        fd = -1;
        --open_fds;
      }
    };
    drain(oi, out[0], r.out);
    drain(ei, err[0], r.err);
    if (ii >= 0 && fds[ii].revents != 0) {
      ssize_t w = ::write(in_fd, options.stdin_data.data() + written, options.stdin_data.size() - written);
      if (w > 0) written += static_cast<std::size_t>(w);
      if (w < 0 && errno != EAGAIN && errno != EINTR) written = options.stdin_data.size();
      if (written >= options.stdin_data.size()) {
        ::close(in_fd);
        in_fd = -1;
      }
    }
  }
  for (int fd : {out[0], err[0], in_fd})
    if (fd >= 0) ::close(fd);
  r.exit_code = wait_exit(pid);
  return r;
}

Spawned spawn_process(const std::vector<std::string>& argv, const SpawnOptions& options) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!options.dir.empty()) posix_spawn_file_actions_addchdir_np(&fa, options.dir.c_str());
  const int mode = O_WRONLY | O_CREAT | (options.append ? O_APPEND : O_TRUNC);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (!options.out_path.empty()) posix_spawn_file_actions_addopen(&fa, 1, options.out_path.c_str(), mode, 0644);
  if (!options.err_path.empty())
    posix_spawn_file_actions_addopen(&fa, 2, options.err_path.c_str(), mode, 0644);
  else
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = -1;
  if (int rc = spawn_with(fa, argv, options.env, &pid); rc != 0) throw cannot_start(argv, rc);
  return {pid, options.out_path, options.err_path};
}

Spawned spawn_process(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path,
                      const Env& env) {
  return spawn_process(argv, {.out_path = out_path, .err_path = err_path, .env = env});
}

int wait_exit(int pid, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return exit_code(status);
    if (r < 0 && errno != EINTR) return -2;
    if (std::chrono::steady_clock::now() >= deadline) return -1;
    usleep(5000);  // polling a child's exit; waitpid has no timeout
  }
}

int wait_exit(int pid) {
  int status = 0;
  for (;;) {
    if (waitpid(pid, &status, 0) == pid) return exit_code(status);
    if (errno != EINTR) return -2;
  }
}

int terminate_process(int pid, std::chrono::milliseconds grace) {
  kill(pid, SIGTERM);
  const int code = wait_exit(pid, grace);
  if (code != -1) return code;
  kill(pid, SIGKILL);
  return wait_exit(pid, grace);
}

LineChild::LineChild(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  const int rc = spawn_with(fa, argv, {}, &pid_);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    throw cannot_start(argv, rc);
  }
  reader_ = std::thread([this, fd = fds[0]] { read_loop(fd); });
}

LineChild::~LineChild() {
  if (code_ == -1) {
    ::kill(pid_, SIGKILL);
    code_ = fmtest::wait_exit(pid_);
  }
  if (reader_.joinable()) reader_.join();  // EOF once the child is gone
}

void LineChild::read_loop(int fd) {
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

void LineChild::signal(int sig) const {
  if (code_ == -1) ::kill(pid_, sig);
}

int LineChild::wait_exit(std::chrono::milliseconds timeout) {
  if (code_ == -1) code_ = fmtest::wait_exit(pid_, timeout);
  return code_;
}

std::vector<std::string> LineChild::lines() const {
  std::lock_guard lock(mu_);
  return lines_;
}

std::string LineChild::await_line(const std::function<bool(const std::string&)>& pred,
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

}  // namespace fmtest
