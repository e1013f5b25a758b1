#include "lease/call_bound.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <functional>

namespace forgemeter::lease_detail {

CallBound::CallBound(const Deadline& d) : deadline_(d), real_at_(std::chrono::steady_clock::now() + d.remaining()) {
  if (!d.stop.stop_possible() || d.stop.stop_requested()) return;
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd_ < 0) return;  // no fd to spare: the stop is still seen within poll_ms()
  const int fd = stop_fd_;
  on_stop_.emplace(d.stop, std::function<void()>([fd] {
                     const std::uint64_t one = 1;
                     [[maybe_unused]] auto n = ::write(fd, &one, sizeof one);
                   }));
}

CallBound::~CallBound() {
  on_stop_.reset();  // first: a stop_callback running now is waited for
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

Deadline CallBound::on_real_clock() const {
  using namespace std::chrono;
  const Duration left = std::min(deadline_.remaining(), duration_cast<Duration>(real_at_ - steady_clock::now()));
  return Deadline::after(system_clock(), std::max(left, Duration::zero()), deadline_.stop);
}

int CallBound::poll_ms() const {
  using namespace std::chrono;
  auto left = std::min(deadline_.remaining(), duration_cast<Duration>(real_at_ - steady_clock::now()));
  if (left <= Duration::zero()) return 0;
  // Wake at least every 50 ms so a deadline on a clock other than the real one
  // (a ManualClock stepped by a test) is noticed promptly.
  auto ms = duration_cast<milliseconds>(left + milliseconds(1) - nanoseconds(1)).count();
  return static_cast<int>(std::clamp<long long>(ms, 1, 50));
}

Ready wait_socket(int fd, bool for_read, bool for_write, const CallBound& bound) {
  if (fd < 0) return Ready::failed;
  for (;;) {
    if (bound.stopped()) return Ready::stopped;
    if (bound.passed()) return Ready::timed_out;
    pollfd p[2]{};
    p[0].fd = fd;
    p[0].events = static_cast<short>((for_read ? POLLIN : 0) | (for_write ? POLLOUT : 0));
    p[1].fd = bound.stop_fd();  // -1: ignored by poll()
    p[1].events = POLLIN;
    int n = ::poll(p, 2, bound.poll_ms());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Ready::failed;
    }
    if (bound.stopped()) return Ready::stopped;
    // Errors and hang-ups are "ready": libpq reads them and reports.
    if (p[0].revents != 0) return Ready::ready;
  }
}

}  // namespace forgemeter::lease_detail
