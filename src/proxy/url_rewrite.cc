// A URL, a Location and a Link on the upstream's base, written on the
// public one (url_rewrite.h); the body's stream is body_rewrite.cc.
#include <stdexcept>

#include "core/origin.h"
#include "proxy/url_rewrite.h"

namespace forgemeter::proxy {
namespace {

// The bytes a base may hold: a URL's, less those that would need escaping
// in JSON or a header, and less `?`, `#` and `@` (no query, fragment, userinfo).
bool base_byte(char c) noexcept {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("-._~:/[]!$&'()*+,;=%").find(c) != std::string_view::npos;
}

std::string_view without_trailing_slash(std::string_view base) {
  while (base.ends_with('/')) base.remove_suffix(1);
  return base;
}

std::optional<std::string> why_bad_base(std::string_view base, std::string_view which) {
  const std::string w(which);
  if (base.size() > 2048) return w + " base is longer than 2048 bytes";
  for (char c : base)
    if (!base_byte(c)) return w + " base holds a byte a base URL never does (a query, userinfo, a quote, a space)";
  if (!base.starts_with("http://") && !base.starts_with("https://")) return w + " base is not an http(s) URL";
  if (!core_detail::origin_of(base)) return w + " base has no host";
  return std::nullopt;
}

std::string escaped_slashes(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '/') out += '\\';
    out += c;
  }
  return out;
}

bool ends_url(char c) noexcept { return c == '/' || c == '?' || c == '#'; }

std::optional<std::string> why_unsendable(std::string_view value) {
  if (value.size() > kMaxRewrittenHeader) return "longer than " + std::to_string(kMaxRewrittenHeader) + " bytes";
  for (unsigned char c : value)
    if (c < 0x20 || c == 0x7f) return "a control byte (CR, LF, NUL, ...) in it";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> UrlRewriter::check(std::string_view upstream_base, std::string_view public_base) {
  if (auto why = why_bad_base(without_trailing_slash(upstream_base), "the upstream")) return why;
  return why_bad_base(without_trailing_slash(public_base), "the public");
}

UrlRewriter::UrlRewriter(std::string_view upstream_base, std::string_view public_base)
    : upstream_(without_trailing_slash(upstream_base)), public_(without_trailing_slash(public_base)) {
  if (auto why = check(upstream_, public_)) throw std::invalid_argument("url rewriting: " + *why);
  const std::size_t path = upstream_.find('/', upstream_.find("://") + 3);
  upstream_origin_ = upstream_.substr(0, path);
  upstream_escaped_ = escaped_slashes(upstream_);
  public_escaped_ = escaped_slashes(public_);
}

std::string UrlRewriter::url(std::string_view url) const {
  if (!url.starts_with(upstream_) || (url.size() > upstream_.size() && !ends_url(url[upstream_.size()])))
    return std::string(url);
  return public_ + std::string(url.substr(upstream_.size()));
}

std::string UrlRewriter::absolute(std::string_view target) const {
  if (target.starts_with("//")) return upstream_.substr(0, upstream_.find(':') + 1) + std::string(target);
  if (target.starts_with('/')) return upstream_origin_ + std::string(target);
  return std::string(target);
}

RewrittenHeader UrlRewriter::location(std::string_view value) const {
  if (auto why = why_unsendable(value)) return {{}, "a Location " + *why};
  return {url(absolute(value)), std::nullopt};
}

RewrittenHeader UrlRewriter::link(std::string_view value) const {
  if (auto why = why_unsendable(value)) return {{}, "a Link " + *why};
  std::string out;
  std::size_t at = 0;
  while (at < value.size()) {
    const std::size_t open = value.find('<', at);
    const std::size_t close = open == std::string_view::npos ? open : value.find('>', open);
    if (close == std::string_view::npos) break;
    out.append(value, at, open + 1 - at);
    out += url(absolute(value.substr(open + 1, close - open - 1)));
    out += '>';
    at = close + 1;
    // Each target may grow by a base: a Link of many short targets could grow past any header's size.
    if (out.size() > 2 * kMaxRewrittenHeader) return {{}, "a Link that would grow past its bound rewritten"};
  }
  out.append(value, std::min(at, value.size()));
  return {std::move(out), std::nullopt};
}

std::string upstream_url(std::string_view upstream_base, std::string_view path, std::string_view query) {
  std::string url(without_trailing_slash(upstream_base));
  if (!path.starts_with('/')) url += '/';
  url += path;
  if (!query.empty()) url.append("?").append(query);
  return url;
}

std::optional<std::string> public_base(std::string_view scheme, std::string_view host, std::string_view base_path) {
  if (scheme != "http" && scheme != "https") return std::nullopt;
  if (host.empty() || host.size() > 255) return std::nullopt;
  for (char c : host)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
          c == ':' || c == '[' || c == ']'))
      return std::nullopt;
  if (!base_path.empty() && !base_path.starts_with('/')) return std::nullopt;
  std::string base = std::string(scheme) + "://" + std::string(host) + std::string(base_path);
  if (why_bad_base(base, "the public")) return std::nullopt;
  return base;
}

}  // namespace forgemeter::proxy
