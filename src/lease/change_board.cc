#include "lease/change_board.h"

#include <algorithm>
#include <stop_token>

namespace forgemeter::lease_detail {

std::uint64_t ChangeBoard::mark_locked(std::string_view name) const {
  auto it = counts_.find(name);
  return everyone_ + (it == counts_.end() ? 0 : it->second);
}

std::uint64_t ChangeBoard::mark(std::string_view name) const {
  core_detail::MutexLock lock(mu_);
  return mark_locked(name);
}

void ChangeBoard::changed(std::string_view name) {
  core_detail::MutexLock lock(mu_);
  auto it = counts_.find(name);
  if (it == counts_.end()) it = counts_.emplace(std::string(name), 0).first;
  ++it->second;
  for (Waiter* w : waiters_)
    if (w->name == name) w->wake->request_stop();
}

void ChangeBoard::changed_all() {
  core_detail::MutexLock lock(mu_);
  ++everyone_;
  for (Waiter* w : waiters_) w->wake->request_stop();
}

bool ChangeBoard::wait(std::string_view name, std::uint64_t mark, const Deadline& deadline) {
  std::stop_source wake;
  Waiter me{name, &wake};
  {
    core_detail::MutexLock lock(mu_);
    if (mark_locked(name) != mark) return true;
    waiters_.push_back(&me);
  }
  {
    std::stop_callback relay(deadline.stop, [&wake] { wake.request_stop(); });
    deadline.clock->wait_until(deadline.at, wake.get_token());
  }
  core_detail::MutexLock lock(mu_);
  waiters_.erase(std::find(waiters_.begin(), waiters_.end(), &me));
  return mark_locked(name) != mark;
}

}  // namespace forgemeter::lease_detail
