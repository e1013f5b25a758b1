#include "cli/fetch/meter_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "cli/errors.h"

namespace forgemeter::cli {

namespace {

struct Fd {
  int fd = -1;
  bool owned = false;
  Fd(int f, bool own) : fd(f), owned(own) {}
  ~Fd() {
    if (owned) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

}  // namespace

LineSink meter_log_sink(const std::string& where) {
  if (where.empty()) return stderr_sink();
  std::shared_ptr<Fd> out;
  if (where == "-") {
    out = std::make_shared<Fd>(STDOUT_FILENO, false);
  } else {
    const int fd = ::open(where.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
      throw CommandError(fmt::format("cannot open --meter-log '{}': {}; check the path", where, std::strerror(errno)));
    out = std::make_shared<Fd>(fd, true);
  }
  return [out](std::string_view line) {
    std::string text;
    text.reserve(line.size() + 1);
    text.append(line).push_back('\n');
    // One write: a short or failed one loses (part of) this line only.
    [[maybe_unused]] const auto written = ::write(out->fd, text.data(), text.size());
  };
}

}  // namespace forgemeter::cli
