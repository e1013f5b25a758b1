#include "core/output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fmt/format.h>

namespace forgemeter::core_detail {

namespace {

[[noreturn]] void cannot_open(const std::string& path, int error) {
  throw WriteError(fmt::format("cannot write '{}': {}; choose a writable path", path, std::strerror(error)));
}

}  // namespace

void write_file(const std::string& path, std::string_view text) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) cannot_open(path, errno);
  if (std::fwrite(text.data(), 1, text.size(), f.get()) != text.size() || std::fflush(f.get()) != 0)
    throw WriteError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
}

void check_writable(const std::string& path) {
  // An existing file is opened without O_TRUNC; an absent one is created
  // only to prove it can be, and removed at once.
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  bool created = false;
  if (fd < 0 && errno == ENOENT) {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    created = fd >= 0;
  }
  if (fd < 0) cannot_open(path, errno);
  ::close(fd);
  if (created) ::unlink(path.c_str());
}

void write_stdout(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    throw WriteError(fmt::format("cannot write to stdout: {}", std::strerror(errno)));
}

void write_output(const std::string& path, std::string_view text) {
  if (path == "-")
    write_stdout(text);
  else
    write_file(path, text);
}

}  // namespace forgemeter::core_detail
