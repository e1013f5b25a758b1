#include "cli/report/outputs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>

#include <fmt/format.h>

#include "cli/errors.h"
#include "core/terminal_text.h"

namespace forgemeter::cli {

namespace {

using core_detail::terminal_text;

std::optional<struct stat> stat_of(const std::string& path) {
  struct stat st {};
  if ((path == "-" ? ::fstat(STDIN_FILENO, &st) : ::stat(path.c_str(), &st)) != 0) return std::nullopt;
  return st;
}

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// The input `out` is, if any.
std::optional<std::string> input_that_is(const struct stat& out, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs)
    if (const auto in = stat_of(input); in && same_file(*in, out)) return input == "-" ? "stdin" : "'" + input + "'";
  return std::nullopt;
}

// Whether the file's first bytes are a report page's.
bool holds_page_mark(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  char head[kPageMarkWithin];
  const ssize_t got = ::read(fd, head, sizeof head);
  ::close(fd);
  return got > 0 && std::string_view(head, static_cast<std::size_t>(got)).find(kPageMark) != std::string_view::npos;
}

}  // namespace

void check_output_file(const std::string& option, const std::string& path, const std::vector<std::string>& inputs,
                       bool force) {
  const auto out = stat_of(path);
  if (!out) return;  // absent (or unreachable: opening it says why)
  if (const auto input = input_that_is(*out, inputs))
    throw UsageError(terminal_text(fmt::format(
        "{} {} is the input {} (the same file): the report would overwrite the log it reads; name another file", option,
        path, *input)));
  if (force || !S_ISREG(out->st_mode) || out->st_size == 0) return;
  if (holds_page_mark(path)) return;  // a link: the page it names
  throw UsageError(terminal_text(
      fmt::format("{} {}: the file exists and is not a page a report wrote (a shell glob right after {} makes "
                  "its first file the page): give --force to write over it, or name another file",
                  option, path, option)));
}

void check_stdout_output(const std::vector<std::string>& inputs) {
  struct stat out {};
  if (::fstat(STDOUT_FILENO, &out) != 0 || !S_ISREG(out.st_mode)) return;
  if (const auto input = input_that_is(out, inputs))
    throw UsageError(terminal_text(
        fmt::format("stdout is the input {} (the same file): the report would write into the log it reads; redirect it "
                    "elsewhere",
                    *input)));
}

}  // namespace forgemeter::cli
