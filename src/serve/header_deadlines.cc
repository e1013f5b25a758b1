// HeaderDeadlines (header_deadlines.h).
#include "serve/header_deadlines.h"

#include <sys/socket.h>

#include <algorithm>

namespace forgemeter::serve {

HeaderDeadlines::HeaderDeadlines(const Clock& clock, Duration header_timeout, Duration keep_alive_wait)
    : clock_(clock), header_timeout_(header_timeout), keep_alive_wait_(keep_alive_wait) {
  thread_ = std::thread([this] { run(); });
}

HeaderDeadlines::~HeaderDeadlines() {
  {
    core_detail::MutexLock lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void HeaderDeadlines::accepted(const void* key, int fd, Duration header_timeout) {
  core_detail::MutexLock lock(mu_);
  entries_[key] = {fd, clock_.steady_now() + std::min(header_timeout, header_timeout_)};
}

void HeaderDeadlines::headers_read(const void* key) {
  core_detail::MutexLock lock(mu_);
  if (auto it = entries_.find(key); it != entries_.end()) it->second.deadline = SteadyTime::max();
}

void HeaderDeadlines::answered(const void* key) {
  core_detail::MutexLock lock(mu_);
  if (auto it = entries_.find(key); it != entries_.end()) it->second.deadline = clock_.steady_now() + keep_alive_wait_;
}

void HeaderDeadlines::closed(const void* key) {
  core_detail::MutexLock lock(mu_);
  entries_.erase(key);
}

std::uint64_t HeaderDeadlines::cut() const {
  core_detail::MutexLock lock(mu_);
  return cut_;
}

void HeaderDeadlines::run() {
  // A tenth of the header timeout, within [50 ms, 1 s]: a client is cut at
  // most that late, and the scan (a few thousand entries) stays rare.
  const Duration tick =
      std::clamp<Duration>(header_timeout_ / 10, std::chrono::milliseconds(50), std::chrono::seconds(1));
  core_detail::UniqueLock lock(mu_);
  while (!stop_) {
    const SteadyTime now = clock_.steady_now();
    for (auto& [key, entry] : entries_) {
      if (entry.deadline > now) continue;
      // The socket stays open (the server closes it when it sees the
      // shutdown), so its number cannot be reused under us: closed() comes
      // first, under this lock.
      ::shutdown(entry.fd, SHUT_RDWR);
      entry.deadline = SteadyTime::max();
      ++cut_;
    }
    cv_.wait_for(lock.native(), tick);
  }
}

}  // namespace forgemeter::serve
