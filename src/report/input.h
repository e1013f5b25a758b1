// input.h — one log input (a file, or `-` for stdin), plain or gzip, read fast.
//
// for_each_marked() hands over only the lines that contain a marker: each
// block read (block_scan.h: 1 MiB reads into one reused buffer; pread for a
// plain regular file, read() for pipes and stdin, inflated blocks for gzip,
// detected by its magic bytes, multi-member streams included) is searched
// for the marker first, and only around a hit are the line's ends looked
// for, so lines without it cost nothing but the search. Memory is bounded by
// the block size plus the longest line (lines are cut at 16 MiB).
//
// Errors: open() throws ReportError with what to do when the input cannot be
// opened; for_each_marked() throws ReportError on a read error. Corrupt or
// truncated gzip data is not fatal: the lines inflated before it are handed
// over and the problem is returned.
//
// Thread-safety: one thread uses a reader; plain_file()'s descriptor may be
// read with pread from several threads while the reader lives.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace forgemeter::report {

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

  // Calls on_line(line) (no '\n') for every line containing `marker` (and
  // every line while *follow, when given: BlockScan::follow), and
  // on_dropped(line number, its first bytes) for a line that starts with it
  // and is over the line limit, dropped (block_scan.h). The input's last
  // line, when no '\n' ends it, goes to on_unended instead (when given).
  using OnLine = std::function<void(std::string_view)>;
  using OnDroppedLine = std::function<void(std::uint64_t line_no, std::string_view head)>;
  virtual Result for_each_marked(std::string_view marker, const OnLine& on_line, const OnDroppedLine& on_dropped,
                                 const bool* follow = nullptr, const OnLine& on_unended = {}) = 0;

  // 1-based number of the line `line` (a view handed to on_line, during that
  // call). Cheap for a few calls per input.
  virtual std::uint64_t line_number(std::string_view line) = 0;

  // A plain regular file (not gzip): its descriptor (owned by the reader) and
  // its size when opened, for callers that read pieces of it in parallel.
  struct PlainFile {
    int fd = -1;
    std::uint64_t size = 0;
  };
  virtual std::optional<PlainFile> plain_file() const { return std::nullopt; }

  // A regular file's device and inode as opened (stdin too when it is
  // redirected from one; not a pipe): the same file named twice, or a file
  // replaced while read, is told by them.
  struct FileId {
    std::uint64_t device = 0, inode = 0;
    friend bool operator==(const FileId&, const FileId&) = default;
  };
  const std::optional<FileId>& file_id() const { return id_; }
  // Throws ReportError when the path no longer names the file that was opened
  // (renamed over or deleted while it was read); `bytes`: how far it was read.
  // Stdin has no path to check.
  void check_still_named(std::uint64_t bytes) const;

 protected:
  explicit LogReader(std::string name) : name_(std::move(name)) {}
  // A block scan's line callback (block_scan.h) that notes where the line is
  // (for line_number()) and hands it to `to`; empty when `to` is.
  std::function<void(std::string_view, std::uint64_t)> handing(const OnLine& to);
  const char* current_ = nullptr;  // the view last handed over, and its offset in the input
  std::uint64_t current_offset_ = 0;

 private:
  std::string name_;
  std::optional<FileId> id_;
  bool named_ = true;  // false: stdin, whose file has no name to look up again
};

}  // namespace forgemeter::report
