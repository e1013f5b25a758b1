// output.h — what `forgemeter fetch` writes for one URL, as curl does:
// the answer (with -i its status line and header fields first, then the body)
// raw to stdout or the -o file, and then the -w/--write-out text on stdout.
//
// The answer is the user's data and is written byte for byte, control bytes
// and all (as curl writes it); what -w makes of the forge's values
// (%{url_effective}, %{errormsg}) is terminal-safe (core/terminal_text.h),
// as a URL or a message never needs a control byte. Errors: WriteOut's
// constructor throws UsageError for a format it cannot expand.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "forgemeter/transport.h"

namespace forgemeter::cli {

// One URL fetched: what -w and -v describe.
struct Fetched {
  const Request& req;
  const Response& res;
  std::chrono::steady_clock::duration took;
  int exit_code = 0;
  std::uint64_t streamed = 0;  // body bytes handed to Request::on_body (Response::body then empty)
};

// Redirects followed: hops answered with a redirect that another hop came after.
int redirects_followed(const Response& res) noexcept;

// `-w FORMAT`: text with curl's %{variable}s, `%%` for a percent sign and the
// escapes \n \r \t \\. Variables: http_code (000 without an answer),
// response_code, num_redirects, time_total (seconds, 6 decimals), url_effective,
// url, method, size_download, exitcode, errormsg; and `%header{name}`, the
// final answer's field of that name (any case; empty when it has none). An
// unknown variable or an unclosed %{ is a usage error (said before anything
// is sent; curl warns and prints nothing for it). Any other % or \ stays as
// written, as in curl.
class WriteOut {
 public:
  explicit WriteOut(std::string_view format);
  // `-w @FILE` reads the format from FILE, `-w @-` from stdin, as curl does;
  // anything else is the format itself. UsageError when FILE cannot be read.
  static WriteOut from_argument(const std::string& arg);
  std::string expand(const Fetched& f) const;

 private:
  enum class Var {
    literal,
    http_code,
    num_redirects,
    time_total,
    url_effective,
    url,
    method,
    size_download,
    exitcode,
    errormsg,
    header
  };
  struct Piece {
    Var var = Var::literal;
    std::string text;  // Var::literal's text, Var::header's name
  };
  std::vector<Piece> pieces_;
};

// Writes `bytes` to `out` and flushes; false when that failed.
bool write_all(std::FILE* out, std::string_view bytes);

// The answer's output (-o) or the header blocks' (-D): stdout ("" or "-") or
// the file at `path`, created (truncated) when the first bytes are written.
// write() returns false when the file cannot be opened or written (curl's
// exit 23).
class AnswerOut {
 public:
  explicit AnswerOut(std::string path);
  ~AnswerOut();
  AnswerOut(const AnswerOut&) = delete;
  AnswerOut& operator=(const AnswerOut&) = delete;

  // -i: the header block (status line, fields, blank line), then the body.
  bool write(const Response& res, bool include_headers);
  bool write(std::string_view bytes);
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace forgemeter::cli
