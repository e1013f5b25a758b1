// input.h — one log input (a file, or `-` for stdin), plain or gzip, read fast.
//
// for_each_marked() hands over only the lines that contain a marker: it finds
// the marker with memmem over large blocks (the whole mmap'ed file for a plain
// regular file; 8 MiB reads for pipes; inflated blocks for gzip, detected by
// its magic bytes, multi-member streams included) and only then looks for the
// line's ends, so lines without it cost nothing but the search. Memory is
// bounded by the block size plus the longest line (lines are cut at 16 MiB).
//
// Errors: open() throws Failure with what to do when the input cannot be
// opened or read. Corrupt or truncated gzip data is not fatal: the lines
// inflated before it are handed over and the problem is returned.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace forgemeter::cli {

// Calls on_line(line) (no '\n', no trailing '\r') for every line of [begin,
// end) that contains `marker`; end is just after a '\n' or the end of input.
void for_each_marked_line(const char* begin, const char* end, std::string_view marker,
                          const std::function<void(std::string_view)>& on_line);

// Tells the kernel the mapped text [begin, end) will not be read again soon:
// its pages leave this process's resident set (they stay in the page cache,
// and reading them again maps them back). Whole pages inside the range only.
void release_mapped(const char* begin, const char* end) noexcept;

// How many '\n' bytes [p, end) holds.
std::uint64_t count_newlines(const char* p, const char* end) noexcept;

class LogReader {
 public:
  // `path` "-" is stdin.
  static std::unique_ptr<LogReader> open(const std::string& path);
  virtual ~LogReader() = default;

  const std::string& name() const { return name_; }

  struct Result {
    std::uint64_t bytes = 0;  // bytes of (inflated) text read
    std::string problem;      // non-empty: corrupt/truncated compressed data, what was lost
  };

  // Calls on_line(line) (no '\n') for every line containing `marker`.
  // Throws Failure on a read error.
  virtual Result for_each_marked(std::string_view marker, const std::function<void(std::string_view)>& on_line) = 0;

  // The whole text of a plain regular file, mapped in memory (valid while the
  // reader lives), for callers that split it; empty for streams and gzip.
  virtual std::string_view mapped_text() const { return {}; }

  // 1-based number of the line `line` (a view handed to on_line, during that
  // call). Cheap for a few calls per input; counting starts on first use.
  std::uint64_t line_number(std::string_view line);

 protected:
  explicit LogReader(std::string name) : name_(std::move(name)) {}
  // Text from which on_line views are cut: [chunk_begin, ...). Called by the
  // implementations when a new block of text starts, with the line count of
  // everything before it (valid only when counting_ is on).
  void begin_chunk(const char* begin);
  // Before discarding [counted_, end): keeps line_number() right if it is in use.
  void end_chunk(const char* end);
  static void scan_block(const char* begin, const char* end, std::string_view marker,
                         const std::function<void(std::string_view)>& on_line) {
    for_each_marked_line(begin, end, marker, on_line);
  }

 private:
  std::string name_;
  const char* counted_ = nullptr;  // line_number() has counted lines before this point
  std::uint64_t lines_before_ = 0;
  bool counting_ = false;
};

}  // namespace forgemeter::cli
