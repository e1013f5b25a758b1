#include "report/file_input.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "report/errors.h"
#include "report/find_marker.h"

namespace forgemeter::report {

namespace {

class FileReader final : public LogReader {
 public:
  FileReader(std::string name, int fd, std::uint64_t size)
      : LogReader(std::move(name)), fd_(fd), size_(size), counter_(this->name(), fd) {
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  ~FileReader() override { ::close(fd_); }
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  Result for_each_marked(std::string_view marker, const OnLine& on_line, const OnDroppedLine& on_dropped,
                         const bool* follow, const OnLine& on_unended) override {
    PreadSource source(name(), fd_, 0, size_);
    std::vector<char> buffer;
    Result result;
    result.bytes = scan_blocks(
        source, marker, BlockScan{.follow = follow}, buffer, handing(on_line), {},
        [&](std::uint64_t offset, std::string_view head) {
          if (on_dropped) on_dropped(counter_.lines_before(offset) + 1, head);
        },
        handing(on_unended));
    return result;
  }
  std::uint64_t line_number(std::string_view line) override {
    std::uint64_t offset = current_offset_ + static_cast<std::uint64_t>(line.data() - current_);
    return counter_.lines_before(offset) + 1;
  }
  std::optional<PlainFile> plain_file() const override { return PlainFile{fd_, size_}; }

 private:
  int fd_;
  std::uint64_t size_;
  LineCounter counter_;
};

}  // namespace

std::size_t PreadSource::read(char* dst, std::size_t n) {
  for (;;) {
    ssize_t r = ::pread(fd_, dst, n, static_cast<off_t>(at_));
    if (r == 0 && at_ < size_)
      throw ReportError(
          fmt::format("'{}' shrank while it was read: it ends at byte {}, but held {} bytes when opened "
                      "(truncated by logrotate's copytruncate?); report a rotated copy instead",
                      name_, at_, size_));
    if (r >= 0) {
      at_ += static_cast<std::uint64_t>(r);
      return static_cast<std::size_t>(r);
    }
    if (errno != EINTR) throw ReportError(fmt::format("cannot read '{}': {}", name_, std::strerror(errno)));
  }
}

std::uint64_t LineCounter::lines_before(std::uint64_t offset) {
  if (offset > at_) {
    buf_.resize(kBlock);
    PreadSource source(name_, fd_, at_, 0);  // a shrink is the scan's to report
    while (at_ < offset) {
      std::size_t got =
          source.read(buf_.data(), static_cast<std::size_t>(std::min<std::uint64_t>(buf_.size(), offset - at_)));
      if (got == 0) break;  // the file shrank under us: count what there is
      lines_ += count_newlines(buf_.data(), buf_.data() + got);
      at_ += got;
    }
  }
  return lines_;
}

std::unique_ptr<LogReader> make_file_reader(std::string name, int fd, std::uint64_t size) {
  return std::make_unique<FileReader>(std::move(name), fd, size);
}

}  // namespace forgemeter::report
