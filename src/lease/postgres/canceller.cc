#include "lease/postgres/canceller.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <thread>

#include "core/mutex.h"

namespace forgemeter::pg {
namespace {

class Canceller {
 public:
  Canceller() {
    std::thread([this] { loop(); }).detach();
  }

  void submit(PGcancel* c) {
    PGcancel* dropped = nullptr;
    {
      core_detail::MutexLock lock(mu_);
      if (queue_.size() >= kMaxPending) {
        dropped = queue_.front();
        queue_.pop_front();
      }
      queue_.push_back(c);
    }
    cv_.notify_one();
    if (dropped) PQfreeCancel(dropped);
  }

  std::atomic<std::size_t> sent{0};

 private:
  void loop() {
    for (;;) {
      PGcancel* c = nullptr;
      {
        core_detail::UniqueLock lock(mu_);
        cv_.wait(lock.native(), [this]() REQUIRES(mu_) { return !queue_.empty(); });
        c = queue_.front();
        queue_.pop_front();
      }
      char err[256];
      PQcancel(c, err, sizeof err);  // the outcome changes nothing: the connection is gone
      PQfreeCancel(c);
      sent.fetch_add(1, std::memory_order_relaxed);
    }
  }

  core_detail::Mutex mu_;
  std::condition_variable cv_;
  std::deque<PGcancel*> queue_ GUARDED_BY(mu_);
};

Canceller& canceller() {
  static Canceller* c = new Canceller;  // never destroyed: its thread outlives static destruction
  return *c;
}

}  // namespace

void cancel_in_background(PGcancel* cancel) {
  if (cancel) canceller().submit(cancel);
}

std::size_t cancels_sent() { return canceller().sent.load(std::memory_order_relaxed); }

namespace {
std::atomic<std::size_t> abandoned{0};
}  // namespace

void note_abandoned() { abandoned.fetch_add(1, std::memory_order_relaxed); }
std::size_t statements_abandoned() { return abandoned.load(std::memory_order_relaxed); }

}  // namespace forgemeter::pg
