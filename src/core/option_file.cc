#include "core/option_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace forgemeter::core_detail {

namespace {

OptionFile failed(std::string why) { return {{}, std::move(why)}; }

using Steady = std::chrono::steady_clock;

OptionFile too_long(std::size_t max_bytes) {
  return failed(fmt::format("is longer than {} bytes, the most this option reads", max_bytes));
}

// Whether `fd` has bytes (or its end) to read before `deadline`
// (Steady::time_point::max(): it is waited for in read()).
bool readable_by(int fd, Steady::time_point deadline) {
  if (deadline == Steady::time_point::max()) return true;
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Steady::now());
    if (left <= std::chrono::milliseconds::zero()) return false;
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 60'000)));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return true;  // read() says what is wrong
  }
}

// Reads `fd` to its end or to one byte past `max_bytes`, whichever is first,
// in blocks (no buffer is copied to grow): what is held never passes the
// bound, and a file within it is joined once at its end.
OptionFile read_bounded(int fd, std::size_t max_bytes, Steady::time_point deadline, std::chrono::milliseconds wait) {
  constexpr std::size_t kBlock = std::size_t{1} << 20;
  std::vector<std::string> blocks;
  std::size_t used = 0, total = 0;  // `used`: of the last block
  while (total <= max_bytes) {
    if (blocks.empty() || used == blocks.back().size()) {
      blocks.emplace_back(std::min(kBlock, max_bytes + 1 - total), '\0');
      used = 0;
    }
    if (!readable_by(fd, deadline)) return failed(fmt::format("nothing more came within {} ms", wait.count()));
    const ssize_t n = ::read(fd, blocks.back().data() + used, blocks.back().size() - used);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return failed(std::strerror(errno));
    if (n == 0) {
      blocks.back().resize(used);
      if (blocks.size() == 1) return {std::move(blocks.front()), std::nullopt};
      OptionFile out;
      out.text.reserve(total);
      for (const std::string& b : blocks) out.text += b;
      return out;
    }
    used += static_cast<std::size_t>(n);
    total += static_cast<std::size_t>(n);
  }
  return too_long(max_bytes);
}

}  // namespace

OptionFile read_option_file(const std::string& path, std::size_t max_bytes, std::chrono::milliseconds wait) {
  const bool timed = wait > std::chrono::milliseconds::zero();
  const auto deadline = timed ? Steady::now() + wait : Steady::time_point::max();
  if (path == "-") return read_bounded(STDIN_FILENO, max_bytes, deadline, wait);
  // With a wait, a FIFO's open does not block for a writer: poll() waits.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | (timed ? O_NONBLOCK : 0));
  if (fd < 0) return failed(std::strerror(errno));
  struct stat st {};
  OptionFile out = ::fstat(fd, &st) != 0 ? failed(std::strerror(errno))
                   : S_ISDIR(st.st_mode) ? failed("is a directory, not a file")
                   : S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes
                       ? too_long(max_bytes)
                       : read_bounded(fd, max_bytes, deadline, wait);
  ::close(fd);
  return out;
}

std::optional<std::string> too_open(unsigned mode, const std::string& path, std::string_view holds) {
  if ((mode & 077) == 0) return std::nullopt;
  return fmt::format(
      "permissions {:04o} are too open: it may hold {}, so it must not be accessible by group or others; run: "
      "chmod 600 {}",
      mode & 07777, holds, path);
}

}  // namespace forgemeter::core_detail
