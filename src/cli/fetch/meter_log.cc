#include "cli/fetch/meter_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "cli/errors.h"
#include "core/terminal_text.h"

namespace forgemeter::cli {

struct MeterLog::Out {
  int fd = -1;
  bool owned = false;
  std::atomic<int> failed{0};  // the errno of the first failed write (EIO for a short one)
  Out(int f, bool own) : fd(f), owned(own) {}
  ~Out() {
    if (owned) ::close(fd);
  }
  Out(const Out&) = delete;
  Out& operator=(const Out&) = delete;
};

MeterLog::MeterLog(const std::string& where) : where_(where) {
  if (where.empty()) return;
  if (where == "-") {
    out_ = std::make_shared<Out>(STDOUT_FILENO, false);
    return;
  }
  const int fd = ::open(where.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    throw CommandError(core_detail::terminal_text(
        fmt::format("cannot open --meter-log '{}': {}; check the path", where, std::strerror(errno))));
  out_ = std::make_shared<Out>(fd, true);
}

LineSink MeterLog::sink() const {
  if (!out_) return stderr_sink();
  return [out = out_](std::string_view line) {
    std::string text;
    text.reserve(line.size() + 1);
    text.append(line).push_back('\n');
    // One write: a short or failed one loses (part of) this line only.
    const auto written = ::write(out->fd, text.data(), text.size());
    if (written != static_cast<ssize_t>(text.size())) {
      int expected = 0;
      out->failed.compare_exchange_strong(expected, written < 0 ? errno : EIO);
    }
  };
}

std::optional<std::string> MeterLog::problem() const {
  const int error = out_ ? out_->failed.load() : 0;
  if (error == 0) return std::nullopt;
  return core_detail::terminal_text(fmt::format("cannot write the meter's lines to {}: {}; lines were lost",
                                                where_ == "-" ? "stdout" : "--meter-log '" + where_ + "'",
                                                std::strerror(error)));
}

}  // namespace forgemeter::cli
