// in_child.h — runs one measurement in a child process of its own, forked
// before the caller starts any thread, so that one measurement's peak memory
// cannot hide another's; its result (a trivially copyable struct) comes back
// through a pipe. Exits the bench with status 1, naming `what`, when the
// child fails (an exception out of `run` included).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <type_traits>

namespace fmbench {

template <class Result, class Run>
Result in_child(const char* what, Run run) {
  static_assert(std::is_trivially_copyable_v<Result>);
  int fds[2];
  if (::pipe(fds) != 0) std::exit(2);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    Result r{};
    try {
      r = run();
    } catch (...) {  // not back into the caller's code, in the child
      ::_exit(4);
    }
    const bool written = ::write(fds[1], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
    ::_exit(written ? 0 : 3);
  }
  ::close(fds[1]);
  Result r{};
  const bool read = ::read(fds[0], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!read || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "the %s failed\n", what);
    std::exit(1);
  }
  return r;
}

}  // namespace fmbench
