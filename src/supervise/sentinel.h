// sentinel.h — the process that SIGKILLs CMD's process group when forgemeter
// dies, however it dies (SIGKILL, OOM killer, a crash), and at the term's
// deadline when forgemeter has proven no later one (it is stalled: SIGSTOP,
// a long page-in).
//
// The sentinel is a fork of forgemeter (no exec, a few syscalls) in a process
// group of its own, so nothing the tree sends to its own group (`kill 0`,
// `kill -9 0`) and no signal to forgemeter's group (a shell's `kill %1`)
// reaches it. It blocks every signal and takes them through a signalfd;
// PR_SET_PDEATHSIG makes the kernel send one whenever its parent thread
// exits. Then it asks getppid(): still forgemeter (only the forking thread
// ended, and the kernel handed it to another thread of forgemeter) means wait
// on; anything else means forgemeter is gone: kill(-group, SIGKILL) and exit.
// A stray signal is answered the same way, so only SIGKILL stops it — which
// forgemeter sends it once the tree is gone.
//
// Deadlines: forgemeter writes each one, a CLOCK_MONOTONIC instant in ns (an
// int64_t, one write() each), to the pipe whose read end is `deadline_fd`;
// the latest one written holds. When CLOCK_MONOTONIC (system-wide, so the
// same reading in both processes) reaches it, the sentinel SIGKILLs the group
// and waits on (for a later deadline, or to be stopped). Before the first
// one, or after EOF with none, nothing is enforced but forgemeter's death.
//
// It writes one byte to `ready_fd` once PDEATHSIG is armed (CMD waits for that
// byte before exec, so no code of CMD runs unguarded), then closes every
// descriptor it inherited but `deadline_fd`. If forgemeter died before
// PDEATHSIG was armed, it kills the group at once and writes nothing.
#pragma once

#include <sys/types.h>

namespace forgemeter::supervise {

// Forks the sentinel for process group `group`; its pid, or -1 (errno set)
// when fork failed. `deadline_fd` (>= 0) is the non-blocking read end of the
// deadlines' pipe. Call from the thread that will reap it.
pid_t start_sentinel(pid_t group, int ready_fd, int deadline_fd);

}  // namespace forgemeter::supervise
