// url_rewrite.h — URLs on the upstream's base rewritten to the base the
// client addressed, on the way out only (never in the cache): in Location,
// in each `<…>` target of Link (pagination), and in JSON bodies' URL
// strings (PyGithub follows an object's `url` and refuses another host).
//
//   UrlRewriter r("https://api.github.com", "http://127.0.0.1:8080/lanes/sweep");
//   r.url("https://api.github.com/repos/o/r")   // "http://127.0.0.1:8080/lanes/sweep/repos/o/r"
//   r.url("https://api.github.com.evil/x")      // unchanged: not at a boundary
//
// A URL is the upstream's when it starts with the upstream base (scheme,
// host, port and base path, byte for byte) and the next byte ends it or
// starts its path, query or fragment (`/`, `?`, `#`; in a body also `"` and
// `\`). Every other URL is left alone. A Location or Link target that is a
// path (`/…`) is read on the upstream's origin first. In a body only a JSON
// string that starts with the URL is rewritten, in the plain form
// (`https://api.github.com/…`) and the escaped one (`https:\/\/api.github.com\/…`),
// the replacement written in the same form.
//
// BodyRewriter works on a stream: chunks in, chunks out, at most a base's
// length (plus two bytes) held across a chunk boundary, never the body; the
// output of a split body equals that of the whole. Output grows only by the
// difference of the bases' lengths per URL rewritten.
// Thread-safety: a UrlRewriter is immutable; a BodyRewriter is one stream's.
// Errors: the constructor throws std::invalid_argument when check() refuses.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace forgemeter::proxy {

// A Location or Link longer than this is refused, not rewritten.
inline constexpr std::size_t kMaxRewrittenHeader = std::size_t{64} * 1024;

// A header's value rewritten, or why it may not be sent (then `value` is empty).
struct RewrittenHeader {
  std::string value;
  std::optional<std::string> refused;
};

class UrlRewriter {
 public:
  // Why these bases cannot be rewritten between, or nullopt: each an
  // absolute http(s) URL without userinfo, query or fragment, of URL bytes
  // that need no escaping in JSON or a header (no `"`, `\`, space, control).
  static std::optional<std::string> check(std::string_view upstream_base, std::string_view public_base);

  // A trailing `/` of either base is ignored.
  UrlRewriter(std::string_view upstream_base, std::string_view public_base);

  // `url` with the upstream base replaced by the public one, or as it was.
  std::string url(std::string_view url) const;
  RewrittenHeader location(std::string_view value) const;
  RewrittenHeader link(std::string_view value) const;

  const std::string& upstream_base() const noexcept { return upstream_; }
  const std::string& public_base() const noexcept { return public_; }

 private:
  friend class BodyRewriter;
  std::string absolute(std::string_view target) const;  // a path read on the upstream's origin
  std::string upstream_, public_;
  std::string upstream_origin_;                    // scheme://host[:port]
  std::string upstream_escaped_, public_escaped_;  // each `/` as `\/`
};

class BodyRewriter {
 public:
  explicit BodyRewriter(const UrlRewriter& rewriter) : r_(rewriter) {}

  // Appends to `out` what of `chunk` (after what was held) can be decided now.
  void write(std::string_view chunk, std::string& out);
  // Appends what was held: the body ended.
  void finish(std::string& out);

 private:
  void scan(std::string_view work, bool final, std::string& out);
  const UrlRewriter& r_;
  std::string held_;  // from a `"` whose string may start with a base, at most a base and two bytes
};

// Whether a body of this Content-Type and Content-Encoding is JSON the
// rewriter can read: application/json or any +json, not encoded (none or
// identity). Any other body crosses as sent: a raw file's text is the
// user's, and a compressed body's bytes are no text (a proxy that must
// rewrite drops the client's Accept-Encoding, or lets the Transport decode).
bool rewrites_body(std::string_view content_type, std::string_view content_encoding = {}) noexcept;

// The URL a request for `path` (as forwarded: the lane prefix stripped, "/"
// at least) and `query` (after `?`, "" for none) goes to on the upstream:
// the base (a trailing `/` ignored), the path, the query.
std::string upstream_url(std::string_view upstream_base, std::string_view path, std::string_view query);

// "scheme://host" + base_path: the base a request addressed, from the
// listener's scheme and its Host header; nullopt when `host` is not a host
// name, an IP literal or either with a port (a client's Host goes into
// every URL written back to it).
std::optional<std::string> public_base(std::string_view scheme, std::string_view host, std::string_view base_path);

}  // namespace forgemeter::proxy
