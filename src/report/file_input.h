// file_input.h — plain regular files: read with pread from any offset, so a
// whole file or pieces of it (one per thread) go through the same block scan.
//
// Errors: read() and lines_before() throw ReportError (with the file's name) on a
// read error. Thread-safety: a PreadSource or LineCounter belongs to one
// thread; several may read one descriptor at once (pread keeps no position).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "report/block_scan.h"
#include "report/input.h"

namespace forgemeter::report {

// The file's bytes from `offset` to its end (as it is when read). A file
// that ends before the `size` it had when opened shrank under the reader (a
// log truncated by logrotate's copytruncate): read() throws ReportError naming the
// byte, rather than let the report sum part of it. size 0: no such check.
class PreadSource final : public ByteSource {
 public:
  PreadSource(const std::string& name, int fd, std::uint64_t offset, std::uint64_t size)
      : name_(name), fd_(fd), at_(offset), size_(size) {}
  std::size_t read(char* dst, std::size_t n) override;

 private:
  const std::string& name_;
  int fd_;
  std::uint64_t at_, size_;
};

// The number of '\n' bytes before an offset, counted by reading the file again:
// only for the line numbers of the first few skipped lines, so nothing is
// counted while no line needs a number. Offsets asked must not decrease.
class LineCounter {
 public:
  LineCounter(const std::string& name, int fd) : name_(name), fd_(fd) {}
  std::uint64_t lines_before(std::uint64_t offset);

 private:
  const std::string& name_;
  int fd_;
  std::uint64_t at_ = 0, lines_ = 0;
  std::vector<char> buf_;
};

// A LogReader over a plain regular file of `size` bytes; takes ownership of fd.
std::unique_ptr<LogReader> make_file_reader(std::string name, int fd, std::uint64_t size);

}  // namespace forgemeter::report
