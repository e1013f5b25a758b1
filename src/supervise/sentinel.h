// sentinel.h — the process that SIGKILLs CMD's process group when forgemeter
// dies, however it dies (SIGKILL, OOM killer, a crash).
//
// The sentinel is a fork of forgemeter (no exec, a few syscalls) in a process
// group of its own, so nothing the tree sends to its own group (`kill 0`,
// `kill -9 0`) and no signal to forgemeter's group (a shell's `kill %1`)
// reaches it. It blocks every signal and waits for any; PR_SET_PDEATHSIG
// makes the kernel send one whenever its parent thread exits. Then it asks
// getppid(): still forgemeter (only the forking thread ended, and the kernel
// handed it to another thread of forgemeter) means wait on; anything else
// means forgemeter is gone: kill(-group, SIGKILL) and exit. A stray signal is
// answered the same way, so only SIGKILL stops it — which forgemeter sends it
// once the tree is gone.
//
// It writes one byte to `ready_fd` once PDEATHSIG is armed (CMD waits for that
// byte before exec, so no code of CMD runs unguarded), then closes every
// descriptor it inherited. If forgemeter died before PDEATHSIG was armed, it
// kills the group at once and writes nothing.
#pragma once

#include <sys/types.h>

namespace forgemeter::supervise {

// Forks the sentinel for process group `group`; its pid, or -1 (errno set)
// when fork failed. Call from the thread that will reap it.
pid_t start_sentinel(pid_t group, int ready_fd);

}  // namespace forgemeter::supervise
