// LogReader::open: a plain regular file is read with pread (file_input.h),
// everything else — stdin, pipes, gzip — as a stream (input_stream.h).
#include "report/input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "report/errors.h"
#include "report/file_input.h"
#include "report/input_stream.h"

namespace forgemeter::report {

std::unique_ptr<LogReader> LogReader::open(const std::string& path) {
  if (path == "-") {
    auto reader = make_stream_reader("(stdin)", STDIN_FILENO, false);
    // Stdin redirected from a file is that file: named as well (`report
    // web.log - < web.log`) it is read once, as any input named twice.
    struct stat st {};
    if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
      reader->id_ = FileId{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
      reader->named_ = false;
    }
    return reader;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw ReportError(
        fmt::format("cannot open '{}': {}; check the path (use '-' for stdin)", path, std::strerror(errno)));
  struct stat st {};
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw ReportError(fmt::format("'{}' is not a readable file; name log files, not directories", path));
  }
  if (!S_ISREG(st.st_mode)) return make_stream_reader(path, fd, true);
  unsigned char magic[2] = {0, 0};
  const bool gzip = pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  auto reader =
      gzip ? make_stream_reader(path, fd, true) : make_file_reader(path, fd, static_cast<std::uint64_t>(st.st_size));
  reader->id_ = FileId{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
  return reader;
}

std::function<void(std::string_view, std::uint64_t)> LogReader::handing(const OnLine& to) {
  if (!to) return {};
  return [this, &to](std::string_view line, std::uint64_t offset) {
    current_ = line.data();
    current_offset_ = offset;
    to(line);
  };
}

void LogReader::check_still_named(std::uint64_t bytes) const {
  if (!id_ || !named_) return;
  struct stat now {};
  if (::stat(name_.c_str(), &now) == 0 &&
      FileId{static_cast<std::uint64_t>(now.st_dev), static_cast<std::uint64_t>(now.st_ino)} == *id_)
    return;
  throw ReportError(
      fmt::format("'{}' was replaced while it was read (noticed at byte {}, its end): its totals would "
                  "mix two files; report a rotated copy instead",
                  name_, bytes));
}

}  // namespace forgemeter::report
