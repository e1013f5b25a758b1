// worker_pool.h — the proxy's forwarding threads. A request waits for one
// in a bounded queue; past the bound it is refused at once: a proxy in
// front of a fleet never queues without limit and never hangs a client.
//
// Thread-safety: every method may be called from any thread at once. The
// threads start in the constructor with the caller's signal mask (construct
// it after signals are blocked). A task must not throw (one that does is
// dropped: nothing leaves a worker). Errors: none thrown (but
// std::bad_alloc and std::system_error from starting a thread).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "core/mutex.h"
#include "core/thread_annotations.h"

namespace forgemeter::proxy {

class WorkerPool {
 public:
  WorkerPool(std::size_t threads, std::size_t max_waiting);
  ~WorkerPool();  // stop()
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `task`; false (and `task` not kept) when max_waiting are waiting.
  bool try_run(std::function<void()> task);
  std::size_t busy() const;
  std::size_t waiting() const;
  // Runs what is queued, then joins the threads; try_run() is false after.
  void stop();

 private:
  void work();

  const std::size_t max_waiting_;
  mutable core_detail::Mutex mu_;
  std::condition_variable queued_;
  std::deque<std::function<void()>> waiting_ GUARDED_BY(mu_);
  std::size_t busy_ GUARDED_BY(mu_) = 0;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace forgemeter::proxy
