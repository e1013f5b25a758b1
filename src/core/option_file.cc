#include "core/option_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace forgemeter::core_detail {

namespace {

OptionFile failed(std::string why) { return {{}, std::move(why)}; }

// Reads `fd` to its end or to one byte past `max_bytes`, whichever is first.
OptionFile read_bounded(int fd, std::size_t max_bytes) {
  OptionFile out;
  char buf[64 * 1024];
  while (out.text.size() <= max_bytes) {
    const std::size_t want = std::min(sizeof buf, max_bytes + 1 - out.text.size());
    const ssize_t n = ::read(fd, buf, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failed(std::strerror(errno));
    if (n == 0) return out;
    out.text.append(buf, static_cast<std::size_t>(n));
  }
  return failed(fmt::format("is longer than {} bytes, the most this option reads", max_bytes));
}

}  // namespace

OptionFile read_option_file(const std::string& path, std::size_t max_bytes) {
  if (path == "-") return read_bounded(STDIN_FILENO, max_bytes);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return failed(std::strerror(errno));
  struct stat st {};
  OptionFile out = ::fstat(fd, &st) != 0 ? failed(std::strerror(errno))
                   : S_ISDIR(st.st_mode) ? failed("is a directory, not a file")
                                         : read_bounded(fd, max_bytes);
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
