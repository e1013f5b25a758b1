#include "cli/fetch/output.h"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "cli/errors.h"
#include "core/option_file.h"
#include "core/shown_url.h"
#include "core/terminal_text.h"
#include "transport/redirect_policy.h"

namespace forgemeter::cli {

using core_detail::terminal_text;

namespace {

// The escape `\c` stands for, or 0 when `c` is not one (the backslash is then kept).
char escaped(char c) noexcept {
  switch (c) {
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case '\\': return '\\';
    default: return 0;
  }
}

constexpr std::string_view kKnownVars =
    "http_code, response_code, num_redirects, time_total, url_effective, url, method, size_download, exitcode, "
    "errormsg; and %header{name}";
constexpr std::string_view kHeaderOpener = "%header{";

}  // namespace

int redirects_followed(const Response& res) noexcept {
  int n = 0;
  for (std::size_t i = 0; i + 1 < res.hops.size(); ++i)
    if (transport_detail::is_redirect(res.hops[i].status)) ++n;
  return n;
}

WriteOut::WriteOut(std::string_view format) {
  static constexpr std::array<std::pair<std::string_view, Var>, 10> kVars{{
      {"http_code", Var::http_code},
      {"response_code", Var::http_code},
      {"num_redirects", Var::num_redirects},
      {"time_total", Var::time_total},
      {"url_effective", Var::url_effective},
      {"url", Var::url},
      {"method", Var::method},
      {"size_download", Var::size_download},
      {"exitcode", Var::exitcode},
      {"errormsg", Var::errormsg},
  }};
  std::string text;
  const auto variable = [&](std::string_view name) {
    for (const auto& [known, var] : kVars) {
      if (known != name) continue;
      if (!text.empty()) pieces_.push_back({Var::literal, std::exchange(text, {})});
      pieces_.push_back({var, {}});
      return;
    }
    throw UsageError(fmt::format("-w: unknown variable '%{{{}}}' (known: {})", terminal_text(name), kKnownVars));
  };
  // The name between `open` (just past its '{') and the next '}', or a usage error.
  const auto braced = [&](std::size_t open, std::string_view opener) {
    const auto close = format.find('}', open);
    if (close == std::string_view::npos)
      throw UsageError(fmt::format("-w: '{}' without its '}}' in '{}'", opener, terminal_text(format)));
    return format.substr(open, close - open);
  };
  for (std::size_t i = 0; i < format.size(); ++i) {
    const char next = i + 1 < format.size() ? format[i + 1] : '\0';
    if (format[i] == '\\' && escaped(next) != 0) {
      text += escaped(next);
      ++i;
    } else if (format[i] == '%' && next == '%') {
      text += '%';
      ++i;
    } else if (format[i] == '%' && next == '{') {
      const std::string_view name = braced(i + 2, "%{");
      variable(name);
      i += 2 + name.size();
    } else if (format.substr(i).starts_with(kHeaderOpener)) {
      const std::string_view name = braced(i + kHeaderOpener.size(), kHeaderOpener);
      if (!text.empty()) pieces_.push_back({Var::literal, std::exchange(text, {})});
      pieces_.push_back({Var::header, std::string(name)});
      i += kHeaderOpener.size() + name.size();
    } else {
      text += format[i];
    }
  }
  if (!text.empty()) pieces_.push_back({Var::literal, std::move(text)});
}

std::string WriteOut::expand(const Fetched& f) const {
  std::string out;
  for (const Piece& p : pieces_) {
    switch (p.var) {
      case Var::literal: out += p.text; break;
      case Var::http_code: out += fmt::format("{:03d}", f.res.status); break;
      case Var::num_redirects: out += std::to_string(redirects_followed(f.res)); break;
      case Var::time_total: out += fmt::format("{:.6f}", std::chrono::duration<double>(f.took).count()); break;
      case Var::url_effective:
        out += core_detail::shown_url(f.res.hops.empty() ? f.req.url : f.res.hops.back().url);
        break;
      case Var::url: out += core_detail::shown_url(f.req.url); break;
      case Var::method: out += terminal_text(f.req.method); break;
      case Var::size_download: out += std::to_string(f.res.body.size() + f.streamed); break;
      case Var::exitcode: out += std::to_string(f.exit_code); break;
      case Var::errormsg: out += f.res.error ? core_detail::shown_url(f.res.error.message) : std::string(); break;
      case Var::header: out += terminal_text(f.res.header(p.text).value_or(std::string_view())); break;
    }
  }
  return out;
}

WriteOut WriteOut::from_argument(const std::string& arg) {
  if (!arg.starts_with('@')) return WriteOut(arg);
  constexpr std::size_t kMaxFormat = std::size_t{64} << 10;
  const std::string path = arg.substr(1);
  const auto file = core_detail::read_option_file(path, kMaxFormat);  // "-": stdin
  if (file.problem)
    throw UsageError(fmt::format("-w @{}: cannot read the file ({}); check the path and its permissions",
                                 terminal_text(path), *file.problem));
  return WriteOut(file.text);
}

bool write_all(std::FILE* out, std::string_view bytes) {
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size()) return false;
  return std::fflush(out) == 0;
}

AnswerOut::AnswerOut(std::string path) : path_(std::move(path)) {}

AnswerOut::~AnswerOut() {
  if (file_ != nullptr) std::fclose(file_);
}

bool AnswerOut::write(const Response& res, bool include_headers) {
  // A 304 carries nothing to keep: -o's file (the last 200's answer, with
  // --etag-compare) is neither created nor truncated, as curl.
  if (res.status == 304 && res.body.empty() && !include_headers) return true;
  return (!include_headers || write(res.headers.raw())) && write(res.body);
}

bool AnswerOut::write(std::string_view bytes) {
  std::FILE* out = stdout;
  if (!path_.empty() && path_ != "-") {
    if (file_ == nullptr) file_ = std::fopen(path_.c_str(), "wb");
    if (file_ == nullptr) return false;
    out = file_;
  }
  return write_all(out, bytes);
}

}  // namespace forgemeter::cli
