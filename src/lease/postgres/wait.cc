#include "lease/postgres/wait.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>

namespace forgemeter::pg {

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
    if (bound.passed()) return Ready::timed_out;
    pollfd p{};
    p.fd = fd;
    p.events = static_cast<short>((for_read ? POLLIN : 0) | (for_write ? POLLOUT : 0));
    int n = ::poll(&p, 1, bound.poll_ms());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Ready::failed;
    }
    // Errors and hang-ups are "ready": libpq reads them and reports.
    if (n > 0) return Ready::ready;
  }
}

}  // namespace forgemeter::pg
