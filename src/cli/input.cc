// LogReader: the marker scan, line numbers, and plain regular files (mmap).
#include "cli/input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "cli/errors.h"
#include "cli/find_marker.h"
#include "cli/input_stream.h"

namespace forgemeter::cli {

namespace {

bool is_gzip(const char* p, std::size_t n) {
  return n >= 2 && static_cast<unsigned char>(p[0]) == 0x1f && static_cast<unsigned char>(p[1]) == 0x8b;
}

constexpr std::size_t kWindow = std::size_t{32} << 20;  // released behind the scan

// A plain regular file, mapped whole and scanned in place, window by window.
class MappedReader final : public LogReader {
 public:
  MappedReader(std::string name, const char* data, std::size_t size) : LogReader(std::move(name)), data_(data), size_(size) {}
  ~MappedReader() override { munmap(const_cast<char*>(data_), size_); }

  Result for_each_marked(std::string_view marker, const std::function<void(std::string_view)>& on_line) override {
    begin_chunk(data_);
    const char* const end = data_ + size_;
    for (const char* p = data_; p < end;) {
      const char* stop = end;
      if (static_cast<std::size_t>(end - p) > kWindow)
        if (const void* nl = std::memchr(p + kWindow, '\n', static_cast<std::size_t>(end - p - kWindow)))
          stop = static_cast<const char*>(nl) + 1;
      scan_block(p, stop, marker, on_line);
      release_mapped(p, stop);
      p = stop;
    }
    return Result{size_, {}};
  }
  std::string_view mapped_text() const override { return {data_, size_}; }

 private:
  const char* data_;
  std::size_t size_;
};

}  // namespace

void release_mapped(const char* begin, const char* end) noexcept {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto from = (reinterpret_cast<std::uintptr_t>(begin) + page - 1) / page * page;
  const auto to = reinterpret_cast<std::uintptr_t>(end) / page * page;
  if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

std::uint64_t count_newlines(const char* p, const char* end) noexcept {
  std::uint64_t n = 0;
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    if (nl == nullptr) break;
    ++n;
    p = static_cast<const char*>(nl) + 1;
  }
  return n;
}

std::uint64_t LogReader::line_number(std::string_view line) {
  counting_ = true;
  if (line.data() > counted_) {
    lines_before_ += count_newlines(counted_, line.data());
    counted_ = line.data();
  }
  return lines_before_ + 1;
}

void LogReader::begin_chunk(const char* begin) { counted_ = begin; }

void LogReader::end_chunk(const char* end) {
  if (counting_ && end > counted_) lines_before_ += count_newlines(counted_, end);
  counted_ = end;
}

void for_each_marked_line(const char* begin, const char* end, std::string_view marker,
                          const std::function<void(std::string_view)>& on_line) {
  const char* p = begin;
  while (p < end) {
    const char* m = find_marker(p, end, marker);
    if (m == nullptr) return;
    const void* prev = memrchr(p, '\n', static_cast<std::size_t>(m - p));
    const char* start = prev != nullptr ? static_cast<const char*>(prev) + 1 : p;
    const void* nl = std::memchr(m, '\n', static_cast<std::size_t>(end - m));
    const char* stop = nl != nullptr ? static_cast<const char*>(nl) : end;
    const char* trimmed = (stop > start && stop[-1] == '\r') ? stop - 1 : stop;
    on_line(std::string_view(start, static_cast<std::size_t>(trimmed - start)));
    p = stop + 1;
  }
}

std::unique_ptr<LogReader> LogReader::open(const std::string& path) {
  if (path == "-") return make_stream_reader("(stdin)", STDIN_FILENO, false);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw Failure(fmt::format("cannot open '{}': {}; check the path (use '-' for stdin)", path, std::strerror(errno)));
  struct stat st {};
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Failure(fmt::format("'{}' is not a readable file; name log files, not directories", path));
  }
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    auto size = static_cast<std::size_t>(st.st_size);
    void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      ::close(fd);
      madvise(map, size, MADV_SEQUENTIAL);
      const char* data = static_cast<const char*>(map);
      if (is_gzip(data, size)) return make_gzip_reader(path, data, size, [map, size] { munmap(map, size); });
      return std::make_unique<MappedReader>(path, data, size);
    }
  }
  return make_stream_reader(path, fd, true);
}

}  // namespace forgemeter::cli
