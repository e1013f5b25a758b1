#include "supervise/sentinel.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <limits>

namespace forgemeter::supervise {

namespace {

constexpr std::int64_t kNoDeadline = std::numeric_limits<std::int64_t>::max();

std::int64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

[[noreturn]] void kill_and_exit(pid_t group) {
  ::kill(-group, SIGKILL);
  ::_exit(0);
}

// The latest deadline written to `fd` (non-blocking), or `current` when none
// was; `fd` becomes -1 at EOF (forgemeter closed it: it is gone or done).
std::int64_t read_deadline(int& fd, std::int64_t current) {
  std::int64_t buf[64];
  for (;;) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got == 0) {
      ::close(fd);
      fd = -1;
    }
    if (got <= 0) return current;  // EOF, or nothing more for now (EAGAIN)
    // Each deadline is one 8-byte write (atomic on a pipe), so reads come in whole records.
    if (got >= static_cast<ssize_t>(sizeof buf[0])) current = buf[got / static_cast<ssize_t>(sizeof buf[0]) - 1];
  }
}

// Waits until a signal is pending, a deadline is written, or `deadline` passes.
void wait(int sig_fd, int deadline_fd, std::int64_t deadline) {
  pollfd fds[2] = {{sig_fd, POLLIN, 0}, {deadline_fd, POLLIN, 0}};
  timespec left{};
  timespec* timeout = nullptr;
  if (deadline != kNoDeadline) {
    const std::int64_t ns = deadline - monotonic_ns();
    if (ns <= 0) return;
    left = {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    timeout = &left;
  }
  ::ppoll(fds, 2, timeout, nullptr);  // signals stay blocked: they arrive through sig_fd
}

// The child's whole life. Only raw system calls: it is a fork of a
// multi-threaded process, so no lock another thread held may be touched.
[[noreturn]] void guard(pid_t parent, pid_t group, int ready_fd, int deadline_fd) {
  ::setpgid(0, 0);
  sigset_t all;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, nullptr);  // every signal stays pending until taken below
  ::prctl(PR_SET_PDEATHSIG, SIGUSR1);
  if (::getppid() != parent) kill_and_exit(group);  // forgemeter died before the line above armed it
  const int sig_fd = ::signalfd(-1, &all, SFD_NONBLOCK | SFD_CLOEXEC);
  if (sig_fd < 0) kill_and_exit(group);  // nothing written: CMD never runs
  const char ready = 'r';
  [[maybe_unused]] auto w = ::write(ready_fd, &ready, 1);
  // No pipe, socket or terminal of forgemeter's stays open here (the write end
  // of the deadlines included, so that their EOF means forgemeter closed it).
  const unsigned low = static_cast<unsigned>(std::min(sig_fd, deadline_fd));
  const unsigned high = static_cast<unsigned>(std::max(sig_fd, deadline_fd));
  if (low > 0) ::syscall(SYS_close_range, 0U, low - 1, 0U);
  if (high > low + 1) ::syscall(SYS_close_range, low + 1, high - 1, 0U);
  ::syscall(SYS_close_range, high + 1, ~0U, 0U);
  std::int64_t deadline = kNoDeadline;
  for (;;) {
    if (deadline_fd >= 0) deadline = read_deadline(deadline_fd, deadline);
    if (monotonic_ns() >= deadline) {
      ::kill(-group, SIGKILL);  // the term is over and forgemeter proved no later one
      deadline = kNoDeadline;
    }
    wait(sig_fd, deadline_fd, deadline);
    signalfd_siginfo info[8];
    while (::read(sig_fd, info, sizeof info) > 0) {
    }
    if (::getppid() != parent) kill_and_exit(group);
  }
}

}  // namespace

pid_t start_sentinel(pid_t group, int ready_fd, int deadline_fd) {
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) guard(parent, group, ready_fd, deadline_fd);
  return pid;
}

}  // namespace forgemeter::supervise
