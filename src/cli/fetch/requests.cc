#include "cli/fetch/requests.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "cli/errors.h"
#include "core/ascii.h"
#include "core/duration_text.h"
#include "core/number_text.h"
#include "core/option_file.h"
#include "core/shown_url.h"
#include "core/terminal_text.h"
#include "transport/redirect_policy.h"
#include "transport/request_checks.h"

namespace forgemeter::cli {

using core_detail::has_control_bytes;
using core_detail::iequals;
using core_detail::shown_url;
using core_detail::terminal_text;

namespace {

std::optional<Lane> lane_of(const std::string& name, const std::string& where) {
  if (name.empty()) return std::nullopt;
  if (auto why = Lane::check(name))
    throw UsageError(fmt::format("{}: lane '{}': {}", where, core_detail::ascii_text(name), *why));
  return Lane::parse(name);
}

// An installation id: digits only, 0 (none) to 2^64-1. A sign, a fraction or
// a value past the range is a usage error, never wrapped.
std::uint64_t installation_of(std::string_view text, const std::string& where) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  if (const auto id = core_detail::parse_whole(text, 0, kMax)) return *id;
  throw UsageError(fmt::format("{}: {}", where, core_detail::whole_problem(text, "an installation id", 0, kMax)));
}

// A method or URL with a control byte is refused, shown escaped.
void check_text(std::string_view what, std::string_view text, const std::string& where) {
  if (has_control_bytes(text))
    throw UsageError(fmt::format("{}: the {} '{}' has a control byte; not sent", where, what, shown_url(text)));
}

constexpr std::size_t kTokenBytes = std::size_t{64} << 10;
constexpr std::size_t kUrlsBytes = std::size_t{64} << 20;
// A body is held in memory, and copied for each URL: its bound keeps a
// mistaken @FILE (a disk image, /dev/zero) from taking the machine's memory
// (at 256 MiB, -d @/dev/zero took 536 MB before it was refused).
constexpr std::size_t kBodyBytes = std::size_t{64} << 20;

// The text of a file an option names (`-`: stdin), or a usage error: nothing
// is sent. `label` is what the message shows before the path ("--urls ");
// `wait` bounds the time spent reading (-m; 0: none).
std::string option_text(const std::string& path, std::string_view label, std::size_t max_bytes,
                        std::chrono::milliseconds wait) {
  auto file = core_detail::read_option_file(path, max_bytes, wait);
  if (file.problem)
    throw UsageError(
        fmt::format("{}{}: {}; check the path and its permissions", label, terminal_text(path), *file.problem));
  return std::move(file.text);
}

std::string read_secret(const std::string& path, std::chrono::milliseconds wait) {
  std::string s = option_text(path, "--bearer-file ", kTokenBytes, wait);
  s = std::string(core_detail::trimmed(s, true));
  if (s.empty())
    throw UsageError(fmt::format("--bearer-file '{}' holds no token; put the token in it", terminal_text(path)));
  if (!transport_detail::is_field_value(s))  // its text is not shown: it is a secret
    throw UsageError(
        fmt::format("--bearer-file '{}': the token has a control byte (a CR or LF would start another "
                    "header); not sent",
                    terminal_text(path)));
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0)
    if (const auto why = core_detail::too_open(st.st_mode, path, "a token"))
      std::fputs((terminal_text(fmt::format("forgemeter: warning: --bearer-file {}", *why)) + "\n").c_str(), stderr);
  return s;
}

// One body option's bytes, as curl reads them.
std::string data_of(const DataArg& d, std::chrono::milliseconds wait) {
  using Kind = DataArg::Kind;
  if (d.kind == Kind::raw || !d.value.starts_with('@')) return d.value;
  const char* option = d.kind == Kind::data ? "-d" : d.kind == Kind::json ? "--json" : "--data-binary";
  std::string text = option_text(d.value.substr(1), std::string(option) + " @", kBodyBytes, wait);
  if (d.kind == Kind::data) std::erase_if(text, [](char c) { return c == '\r' || c == '\n'; });
  return text;
}

// The pieces joined as curl joins them: '&' between two, none before a --json piece.
std::string body_of(const std::vector<DataArg>& data, std::chrono::milliseconds wait) {
  if (data.size() == 1) return data_of(data.front(), wait);  // no copy of a large file's text
  std::string body;
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (i > 0 && data[i].kind != DataArg::Kind::json) body += '&';
    body += data_of(data[i], wait);
    if (body.size() > kBodyBytes)
      throw UsageError(fmt::format("the request body is longer than {} bytes, the most fetch sends", kBodyBytes));
  }
  return body;
}

// One -H as curl reads it: 'Name: value' (the spaces and tabs around the
// value dropped, as HTTP drops them), 'Name:' with nothing after it (no
// value: the header removed), 'Name;' (sent with an empty value).
struct HeaderArg {
  std::string name;
  std::optional<std::string> value;  // nullopt: removed
};

HeaderArg header_of(const std::string& h) {
  const auto colon = h.find(':');
  if (colon == std::string::npos) {
    const auto semicolon = h.find(';');
    if (semicolon != std::string::npos && semicolon > 0 && core_detail::trimmed(h.substr(semicolon + 1)).empty())
      return {h.substr(0, semicolon), std::string()};
  }
  if (colon == std::string::npos || colon == 0)
    throw UsageError(
        fmt::format("-H '{}' wants 'Name: value' ('Name:' removes it, 'Name;' sends it empty)", terminal_text(h)));
  const std::string_view value = core_detail::trimmed(std::string_view(h).substr(colon + 1));
  if (value.empty()) return {h.substr(0, colon), std::nullopt};
  return {h.substr(0, colon), std::string(value)};
}

}  // namespace

void check_header(std::string_view option, std::string_view name, std::string_view value) {
  if (!transport_detail::is_token(name))
    throw UsageError(
        fmt::format("{}: the header name '{}' is not an HTTP token; not sent", option, core_detail::ascii_text(name)));
  if (transport_detail::is_field_value(value)) return;
  // A credential's value is not shown, not even escaped.
  const std::string shown = transport_detail::is_credential_header(name) ? "***" : terminal_text(value);
  throw UsageError(
      fmt::format("{}: the {} value '{}' has a control byte (a CR or LF would start another header); not sent", option,
                  core_detail::ascii_text(name), shown));
}

bool removes_header(const RequestArgs& a, std::string_view name) {
  bool removed = false;
  for (const auto& h : a.headers)
    if (HeaderArg arg = header_of(h); iequals(arg.name, name)) removed = !arg.value;
  return removed;
}

Request base_request(const RequestArgs& a, std::chrono::milliseconds wait) {
  Request base;
  base.method = a.method.empty() ? (a.data.empty() ? "GET" : "POST") : a.method;
  check_text("method", base.method, "--request");
  base.body = body_of(a.data, wait);
  if (!a.installation.empty()) base.installation = installation_of(a.installation, "--installation");
  base.lane = lane_of(a.lane, "--lane");
  for (const auto& h : a.headers) {
    HeaderArg arg = header_of(h);
    check_header("-H", arg.name, arg.value.value_or(""));
    // A removal takes every earlier one of its name; of several Authorization the last stands.
    if (!arg.value || iequals(arg.name, "Authorization"))
      std::erase_if(base.headers, [&](const Header& x) { return iequals(x.first, arg.name); });
    if (arg.value) base.headers.emplace_back(std::move(arg.name), std::move(*arg.value));
  }
  // Given (or removed) with -H: fetch makes none of that name.
  const auto given = [&](std::string_view name) {
    return removes_header(a, name) || std::any_of(base.headers.begin(), base.headers.end(),
                                                  [&](const Header& x) { return iequals(x.first, name); });
  };
  const bool json =
      std::any_of(a.data.begin(), a.data.end(), [](const DataArg& d) { return d.kind == DataArg::Kind::json; });
  for (const char* name : {"Content-Type", "Accept"})  // --json's, unless -H says otherwise (as curl)
    if (json && !given(name)) base.headers.emplace_back(name, "application/json");
  if (!a.bearer_file.empty() && !given("Authorization")) base.bearer = read_secret(a.bearer_file, wait);
  return base;
}

std::vector<Request> requests_for(const std::vector<std::string>& urls, const Request& base) {
  std::vector<Request> out;
  for (const auto& u : urls) {
    check_text("URL", u, "URL");
    Request r = base;
    r.url = u;
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<Request> read_url_file(const std::string& path, const Request& base, std::chrono::milliseconds wait) {
  std::istringstream f(option_text(path, "--urls ", kUrlsBytes, wait));
  std::vector<Request> out;
  std::string line;
  for (int n = 1; std::getline(f, line); ++n) {
    std::istringstream words(line);
    std::string method, url, extra;
    if (!(words >> method) || method[0] == '#') continue;
    std::string where = fmt::format("{}:{}", path, n);
    if (!(words >> url)) throw UsageError(fmt::format("{}: want 'METHOD URL [lane=L] [installation=N]'", where));
    check_text("method", method, where);
    check_text("URL", url, where);
    Request r = base;
    r.method = method;
    r.url = url;
    while (words >> extra) {
      if (extra.rfind("lane=", 0) == 0) {
        r.lane = lane_of(extra.substr(5), where);
      } else if (extra.rfind("installation=", 0) == 0) {
        r.installation = installation_of(std::string_view(extra).substr(13), where);
      } else {
        throw UsageError(
            fmt::format("{}: unknown field '{}' (want lane=L or installation=N)", where, terminal_text(extra)));
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::chrono::milliseconds seconds_or_duration(std::string_view text, std::string_view option, bool allow_zero) {
  constexpr double kMaxMs = 100'000.0 * 3600 * 1000;  // 100000 h, as the lease's durations
  double ms = -1;
  if (const auto s = core_detail::parse_decimal(text, 0, kMaxMs / 1000)) {  // plain seconds, as curl writes them
    ms = std::ceil(*s * 1000);
  } else if (const auto d = core_detail::parse_duration(text)) {
    ms = std::ceil(std::chrono::duration<double, std::milli>(*d).count());
  }
  if (ms < 0 || ms > kMaxMs || (ms == 0 && !allow_zero))
    throw UsageError(
        fmt::format("{} wants seconds like 5 or 2.5, or a duration like 500ms or 1m30s, from {} to "
                    "100000h (got '{}')",
                    option, allow_zero ? "0 (no limit)" : "1ms", terminal_text(text)));
  return std::chrono::milliseconds(static_cast<std::int64_t>(ms));
}

}  // namespace forgemeter::cli
