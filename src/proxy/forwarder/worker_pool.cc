// WorkerPool (worker_pool.h).
#include "proxy/forwarder/worker_pool.h"

#include <utility>

namespace forgemeter::proxy {

WorkerPool::WorkerPool(std::size_t threads, std::size_t max_waiting) : max_waiting_(max_waiting) {
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() { stop(); }

bool WorkerPool::try_run(std::function<void()> task) {
  {
    core_detail::MutexLock lock(mu_);
    if (stopping_ || waiting_.size() >= max_waiting_) return false;
    waiting_.push_back(std::move(task));
  }
  queued_.notify_one();
  return true;
}

std::size_t WorkerPool::busy() const {
  core_detail::MutexLock lock(mu_);
  return busy_;
}

std::size_t WorkerPool::waiting() const {
  core_detail::MutexLock lock(mu_);
  return waiting_.size();
}

void WorkerPool::stop() {
  {
    core_detail::MutexLock lock(mu_);
    stopping_ = true;
  }
  queued_.notify_all();
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
}

void WorkerPool::work() {
  for (;;) {
    std::function<void()> task;
    {
      core_detail::UniqueLock lock(mu_);
      queued_.wait(lock.native(), [&]() REQUIRES(mu_) { return stopping_ || !waiting_.empty(); });
      if (waiting_.empty()) return;  // stopping, and nothing left to run
      task = std::move(waiting_.front());
      waiting_.pop_front();
      ++busy_;
    }
    try {
      task();
    } catch (...) {  // nothing leaves a worker; the task's Reply answers 500 when dropped
    }
    core_detail::MutexLock lock(mu_);
    --busy_;
  }
}

}  // namespace forgemeter::proxy
