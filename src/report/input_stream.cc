#include "report/input_stream.h"

#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "report/errors.h"
#include "report/find_marker.h"

namespace forgemeter::report {

namespace {

class FdSource final : public ByteSource {
 public:
  FdSource(std::string name, int fd, bool owns) : name_(std::move(name)), fd_(fd), owns_(owns) {}
  ~FdSource() override {
    if (owns_) ::close(fd_);
  }
  // The first bytes, kept to be read again (to sniff the gzip magic).
  std::string_view peek() {
    if (pending_.empty() && !eof_) {
      pending_.resize(std::size_t{64} * 1024);
      pending_.resize(raw_read(pending_.data(), pending_.size()));
      eof_ = pending_.empty();
    }
    return {pending_.data() + pending_at_, pending_.size() - pending_at_};
  }
  std::size_t read(char* dst, std::size_t n) override {
    if (pending_at_ < pending_.size()) {
      std::size_t k = std::min(n, pending_.size() - pending_at_);
      std::memcpy(dst, pending_.data() + pending_at_, k);
      pending_at_ += k;
      return k;
    }
    return eof_ ? 0 : raw_read(dst, n);
  }

 private:
  std::size_t raw_read(char* dst, std::size_t n) {
    for (;;) {
      ssize_t r = ::read(fd_, dst, n);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno != EINTR) throw ReportError(fmt::format("cannot read '{}': {}", name_, std::strerror(errno)));
    }
  }
  std::string name_;
  int fd_;
  bool owns_;
  bool eof_ = false;
  std::string pending_;
  std::size_t pending_at_ = 0;
};

// gzip (and concatenated members) from another source.
class Inflater final : public ByteSource {
 public:
  Inflater(std::string name, std::unique_ptr<ByteSource> in) : name_(std::move(name)), in_(std::move(in)) {
    if (inflateInit2(&z_, 15 + 16) != Z_OK) throw ReportError("zlib could not start; out of memory?");
  }
  ~Inflater() override { inflateEnd(&z_); }

  std::size_t read(char* dst, std::size_t n) override {
    z_.next_out = reinterpret_cast<Bytef*>(dst);
    z_.avail_out = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
    while (z_.avail_out > 0 && !done_) {
      if (z_.avail_in == 0 && !refill()) {
        if (in_member_) lose("the gzip stream is truncated (it ends inside a member)");
        done_ = true;
        break;
      }
      in_member_ = true;
      int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        in_member_ = false;
        done_out_ += z_.total_out;
        inflateReset(&z_);
      } else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_MEM_ERROR) {
        lose(fmt::format("corrupt gzip data ({})", z_.msg != nullptr ? z_.msg : "inflate failed"));
        done_ = true;
      }
    }
    return n - z_.avail_out;
  }

 private:
  bool refill() {
    buf_.resize(1u << 20);
    z_.next_in = reinterpret_cast<Bytef*>(buf_.data());
    z_.avail_in = static_cast<uInt>(in_->read(buf_.data(), buf_.size()));
    return z_.avail_in > 0;
  }
  void lose(std::string what) {
    problem = fmt::format("{}: {} after {} bytes of text; the lines before it were read, the rest is lost", name_, what,
                          z_.total_out + done_out_);
  }

  std::string name_;
  std::unique_ptr<ByteSource> in_;
  z_stream z_{};
  std::vector<char> buf_;
  bool done_ = false;
  bool in_member_ = false;
  std::uint64_t done_out_ = 0;
};

// Counts lines as it goes: a block is gone before a later line asks its number.
class StreamReader final : public LogReader {
 public:
  StreamReader(std::string name, std::unique_ptr<ByteSource> src) : LogReader(std::move(name)), src_(std::move(src)) {}

  Result for_each_marked(std::string_view marker, const OnLine& on_line, const OnDroppedLine& on_dropped,
                         const bool* follow, const OnLine& on_unended) override {
    std::vector<char> buffer;
    Result result;
    result.bytes = scan_blocks(
        *src_, marker, BlockScan{.follow = follow}, buffer, handing(on_line),
        [&](const char* begin, const char* end) {
          lines_before_ += count_newlines(begin, end);
          passed_ += static_cast<std::uint64_t>(end - begin);
        },
        [&](std::uint64_t, std::string_view head) {
          if (on_dropped) on_dropped(lines_before_ + 1, head);  // every byte before it was passed
        },
        handing(on_unended));
    result.problem = src_->problem;
    return result;
  }
  // Lines before what has passed, plus those between it and `line` (still in the buffer).
  std::uint64_t line_number(std::string_view line) override {
    const char* passed_at = current_ - (current_offset_ - passed_);
    return lines_before_ + count_newlines(passed_at, line.data()) + 1;
  }

 private:
  std::unique_ptr<ByteSource> src_;
  std::uint64_t passed_ = 0, lines_before_ = 0;  // bytes handed to on_passed, and their '\n's
};

bool gzip_magic(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b;
}

}  // namespace

std::unique_ptr<LogReader> make_stream_reader(std::string name, int fd, bool owns_fd) {
  auto src = std::make_unique<FdSource>(name, fd, owns_fd);
  if (gzip_magic(src->peek()))
    return std::make_unique<StreamReader>(name, std::make_unique<Inflater>(name, std::move(src)));
  return std::make_unique<StreamReader>(std::move(name), std::move(src));
}

}  // namespace forgemeter::report
