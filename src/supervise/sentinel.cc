#include "supervise/sentinel.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace forgemeter::supervise {

namespace {

// The child's whole life. Only raw system calls: it is a fork of a
// multi-threaded process, so no lock another thread held may be touched.
[[noreturn]] void guard(pid_t parent, pid_t group, int ready_fd) {
  ::setpgid(0, 0);
  sigset_t all;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, nullptr);  // every signal stays pending until taken below
  ::prctl(PR_SET_PDEATHSIG, SIGUSR1);
  if (::getppid() != parent) {  // forgemeter died before the line above armed it
    ::kill(-group, SIGKILL);
    ::_exit(0);
  }
  const char ready = 'r';
  [[maybe_unused]] auto w = ::write(ready_fd, &ready, 1);
  ::syscall(SYS_close_range, 0U, ~0U, 0U);  // no pipe, socket or terminal of forgemeter's stays open here
  for (;;) {
    // Any signal wakes it (the kernel's sigset is 8 bytes: _NSIG / 8).
    ::syscall(SYS_rt_sigtimedwait, &all, nullptr, nullptr, _NSIG / 8);
    if (::getppid() != parent) {
      ::kill(-group, SIGKILL);
      ::_exit(0);
    }
  }
}

}  // namespace

pid_t start_sentinel(pid_t group, int ready_fd) {
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) guard(parent, group, ready_fd);
  return pid;
}

}  // namespace forgemeter::supervise
