#include "cli/fetch/verbose.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/ascii.h"
#include "core/shown_url.h"
#include "transport/redirect_policy.h"

namespace forgemeter::cli {

using core_detail::shown_url;
using transport_detail::is_credential_header;

namespace {

constexpr std::string_view kRedacted = "***";

// Every line as shown_url() shows it: a URL's password (a hop's, a
// Location's, one in a message) as ***, control bytes escaped.
void line(std::string& out, std::string_view text) {
  out += shown_url(text);
  out += '\n';
}

// The headers given with -H and --bearer-file, as this hop carried them, and
// the Basic credentials libcurl makes of the hop's URL's userinfo when no
// Authorization went with it (only the request's own URL can have one: a
// redirect's is dropped before its hop, transport/redirect_policy.h).
void request_headers(std::string& out, const Request& req, const Hop& hop, bool own_origin) {
  const bool authorized =
      own_origin && (!req.bearer.empty() || std::any_of(req.headers.begin(), req.headers.end(), [](const Header& h) {
        return core_detail::iequals(h.first, "Authorization");
      }));
  if (own_origin && !req.bearer.empty()) line(out, fmt::format("> Authorization: Bearer {}", kRedacted));
  if (!authorized && core_detail::has_userinfo(hop.url)) line(out, fmt::format("> Authorization: Basic {}", kRedacted));
  for (const auto& [name, value] : req.headers) {
    if (!is_credential_header(name)) {
      line(out, fmt::format("> {}: {}", name, value));
    } else if (own_origin) {
      line(out, fmt::format("> {}: {}", name, kRedacted));
    }
  }
}

// The last answer's status line and fields (Set-Cookie's value redacted).
void answer_headers(std::string& out, const Response& res) {
  std::string_view raw = res.headers.raw();
  bool any = false;
  while (!raw.empty()) {
    const auto end = std::min(raw.find('\n'), raw.size());
    std::string_view text = raw.substr(0, end);
    raw.remove_prefix(std::min(end + 1, raw.size()));
    while (!text.empty() && (text.back() == '\r' || text.back() == '\n')) text.remove_suffix(1);
    if (text.empty()) continue;
    const auto colon = text.find(':');
    if (colon != std::string_view::npos && core_detail::iequals(text.substr(0, colon), "Set-Cookie")) {
      line(out, fmt::format("< {} {}", text.substr(0, colon + 1), kRedacted));
    } else {
      line(out, fmt::format("< {}", text));
    }
    any = true;
  }
  if (!any) line(out, fmt::format("< {}", res.status));
}

}  // namespace

std::string verbose_text(const Request& req, const Response& res) {
  std::string out;
  if (res.hops.empty()) line(out, fmt::format("* {} {} not sent: {}", req.method, req.url, res.error.message));
  const std::string origin = transport_detail::origin_key(req.url);
  std::string method = req.method;
  for (std::size_t i = 0; i < res.hops.size(); ++i) {
    const Hop& hop = res.hops[i];
    if (i > 0 && transport_detail::is_redirect(res.hops[i - 1].status))
      method = transport_detail::next_method(res.hops[i - 1].status, method);
    const bool own_origin = transport_detail::origin_key(hop.url) == origin;
    line(out, fmt::format("* hop {} of {}: {}{}", i + 1, res.hops.size(), hop.host,
                          own_origin ? "" : " (another origin: no credentials sent)"));
    line(out, fmt::format("> {} {}", method, hop.url));
    request_headers(out, req, hop, own_origin);
    if (hop.status == kNoAnswer) {
      line(out, "< (no answer)");
    } else if (i + 1 == res.hops.size()) {
      answer_headers(out, res);
    } else {
      line(out, fmt::format("< {}", hop.status));
    }
  }
  return out;
}

}  // namespace forgemeter::cli
