#include "testforge/holds.h"

namespace forgemeter::testforge {

bool Holds::hold(const std::string& key, std::chrono::milliseconds limit) {
  std::unique_lock lock(mu_);
  ++held_[key];
  changed_.notify_all();
  const bool released = changed_.wait_for(lock, limit, [&] { return all_released_ || released_.count(key) > 0; });
  --held_[key];
  changed_.notify_all();
  return released;
}

void Holds::release(const std::string& key) {
  std::lock_guard lock(mu_);
  released_.insert(key);
  changed_.notify_all();
}

void Holds::release_all() {
  std::lock_guard lock(mu_);
  all_released_ = true;
  changed_.notify_all();
}

bool Holds::await_held(const std::string& key, std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return changed_.wait_for(lock, timeout, [&] {
    auto it = held_.find(key);
    return it != held_.end() && it->second >= n;
  });
}

std::size_t Holds::held(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = held_.find(key);
  return it == held_.end() ? 0 : it->second;
}

}  // namespace forgemeter::testforge
