#include "cli/input_stream.h"

#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "cli/errors.h"

namespace forgemeter::cli {

namespace {

constexpr std::size_t kBlock = 8u << 20;     // one read
constexpr std::size_t kMaxLine = 16u << 20;  // a longer line is cut here

// Bytes from somewhere; read() returns 0 at the end, throws Failure on error.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::size_t read(char* dst, std::size_t n) = 0;
  std::string problem;  // set by sources that can lose data without failing
};

class FdSource final : public ByteSource {
 public:
  FdSource(std::string name, int fd, bool owns) : name_(std::move(name)), fd_(fd), owns_(owns) {}
  ~FdSource() override {
    if (owns_) ::close(fd_);
  }
  // The first bytes, kept to be read again (to sniff the gzip magic).
  std::string_view peek() {
    if (pending_.empty() && !eof_) {
      pending_.resize(64 * 1024);
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
      if (errno != EINTR) throw Failure(fmt::format("cannot read '{}': {}", name_, std::strerror(errno)));
    }
  }
  std::string name_;
  int fd_;
  bool owns_;
  bool eof_ = false;
  std::string pending_;
  std::size_t pending_at_ = 0;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(const char* data, std::size_t size, std::function<void()> release)
      : data_(data), size_(size), release_(std::move(release)) {}
  ~MemorySource() override {
    if (release_) release_();
  }
  std::size_t read(char* dst, std::size_t n) override {
    std::size_t k = std::min(n, size_ - at_);
    std::memcpy(dst, data_ + at_, k);
    at_ += k;
    return k;
  }
  // Lets the inflater read in place instead of copying.
  std::string_view take(std::size_t n) {
    std::size_t k = std::min(n, size_ - at_);
    std::string_view v(data_ + at_, k);
    at_ += k;
    return v;
  }

 private:
  const char* data_;
  std::size_t size_;
  std::size_t at_ = 0;
  std::function<void()> release_;
};

// gzip (and concatenated members) from another source.
class Inflater final : public ByteSource {
 public:
  Inflater(std::string name, std::unique_ptr<ByteSource> in) : name_(std::move(name)), in_(std::move(in)) {
    if (inflateInit2(&z_, 15 + 16) != Z_OK) throw Failure("zlib could not start; out of memory?");
    mem_ = dynamic_cast<MemorySource*>(in_.get());
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
    if (mem_ != nullptr) {
      auto v = mem_->take(1u << 30);
      z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(v.data()));
      z_.avail_in = static_cast<uInt>(v.size());
    } else {
      buf_.resize(1u << 20);
      z_.next_in = reinterpret_cast<Bytef*>(buf_.data());
      z_.avail_in = static_cast<uInt>(in_->read(buf_.data(), buf_.size()));
    }
    return z_.avail_in > 0;
  }
  void lose(std::string what) {
    problem = fmt::format("{}: {} after {} bytes of text; the lines before it were read, the rest is lost", name_,
                          what, z_.total_out + done_out_);
  }

  std::string name_;
  std::unique_ptr<ByteSource> in_;
  MemorySource* mem_ = nullptr;
  z_stream z_{};
  std::vector<char> buf_;
  bool done_ = false;
  bool in_member_ = false;
  std::uint64_t done_out_ = 0;
};

class StreamReader final : public LogReader {
 public:
  StreamReader(std::string name, std::unique_ptr<ByteSource> src) : LogReader(std::move(name)), src_(std::move(src)) {
    line_number({});  // count as we go: a block is gone before a later line asks
  }

  Result for_each_marked(std::string_view marker, const std::function<void(std::string_view)>& on_line) override {
    std::vector<char> buf(kBlock);
    std::size_t len = 0;
    Result result;
    bool discarding = false;  // inside a line longer than kMaxLine, after its cut
    for (;;) {
      if (len == buf.size()) buf.resize(std::min(buf.size() * 2, kMaxLine + kBlock));
      std::size_t got = src_->read(buf.data() + len, buf.size() - len);
      result.bytes += got;
      const char* base = buf.data();
      begin_chunk(base);
      if (got == 0) {
        if (len > 0 && !discarding) scan_block(base, base + len, marker, on_line);
        end_chunk(base + len);
        break;
      }
      std::size_t start = 0;
      if (discarding) {
        const void* nl = std::memchr(base + len, '\n', got);
        if (nl == nullptr) {
          end_chunk(base + len + got);
          len = 0;
          continue;
        }
        start = static_cast<std::size_t>(static_cast<const char*>(nl) + 1 - base);
        discarding = false;
      }
      len += got;
      const void* last = memrchr(base + start, '\n', len - start);
      if (last == nullptr) {
        if (len - start >= kMaxLine) {  // cut an endless line; the rest of it is dropped
          scan_block(base + start, base + len, marker, on_line);
          end_chunk(base + len);
          discarding = true;
          len = 0;
        } else if (start > 0) {
          end_chunk(base + start);
          std::memmove(buf.data(), base + start, len - start);
          len -= start;
        }
        continue;
      }
      const char* cut = static_cast<const char*>(last) + 1;
      scan_block(base + start, cut, marker, on_line);
      end_chunk(cut);
      std::size_t tail = static_cast<std::size_t>(base + len - cut);
      std::memmove(buf.data(), cut, tail);
      len = tail;
    }
    result.problem = src_->problem;
    return result;
  }

 private:
  std::unique_ptr<ByteSource> src_;
};

bool gzip_magic(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b;
}

}  // namespace

std::unique_ptr<LogReader> make_stream_reader(std::string name, int fd, bool owns_fd) {
  auto src = std::make_unique<FdSource>(name, fd, owns_fd);
  if (gzip_magic(src->peek())) return std::make_unique<StreamReader>(name, std::make_unique<Inflater>(name, std::move(src)));
  return std::make_unique<StreamReader>(std::move(name), std::move(src));
}

std::unique_ptr<LogReader> make_gzip_reader(std::string name, const char* data, std::size_t size,
                                            std::function<void()> release) {
  auto src = std::make_unique<MemorySource>(data, size, std::move(release));
  return std::make_unique<StreamReader>(name, std::make_unique<Inflater>(name, std::move(src)));
}

}  // namespace forgemeter::cli
