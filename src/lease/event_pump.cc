#include "lease/event_pump.h"

namespace forgemeter::lease_detail {

EventPump::EventPump(std::function<void(const LeaseEvent&)> sink) : sink_(std::move(sink)) {
  if (sink_) thread_ = std::thread([this] { loop(); });
}

EventPump::~EventPump() {
  {
    core_detail::MutexLock lock(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EventPump::post(LeaseEvent e) {
  if (!sink_) return;
  {
    core_detail::MutexLock lock(mu_);
    queue_.push_back(std::move(e));
  }
  cv_.notify_all();
}

void EventPump::loop() {
  core_detail::UniqueLock lock(mu_);
  for (;;) {
    cv_.wait(lock.native(), [&]() REQUIRES(mu_) { return closing_ || !queue_.empty(); });
    if (queue_.empty()) return;  // closing, and everything delivered
    LeaseEvent e = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    try {
      sink_(e);
    } catch (...) {
      // An observer's failure must not end a campaign or escape this thread.
    }
    lock.lock();
  }
}

}  // namespace forgemeter::lease_detail
