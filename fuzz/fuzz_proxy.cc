// libFuzzer target for the proxy's own code: header filtering both ways,
// URL rewriting in Location, Link and a JSON body streamed in random chunks,
// and what the App-token equalizer reads of a request (the access_tokens
// body's scope, the Authorization's JWT). Whatever the bytes: no
// X-Forgemeter-* or hop-by-hop field is forwarded, every field that crosses
// could be sent, a rewritten header has no control byte and stays within its
// bound, the body rewritten chunk by chunk equals the body rewritten whole,
// a canonical scope is its own canonical scope, and no JWT verifies without
// a key.
//
// Input: segments split by 0xFF — the upstream base, the public base (both
// replaced by defaults when refused), a header block (`name:value` lines
// split by LF; a value may hold CR or NUL), a body, and the chunk sizes
// (one byte each).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "appauth/app_jwt.h"
#include "core/ascii.h"
#include "proxy/app_scope.h"
#include "proxy/header_filter.h"
#include "proxy/url_rewrite.h"

namespace {

using namespace forgemeter::proxy;

std::vector<std::string_view> segments(std::string_view in, std::size_t n) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < n) {
    const std::size_t end = in.find('\xff');
    if (end == std::string_view::npos) break;
    out.push_back(in.substr(0, end));
    in.remove_prefix(end + 1);
  }
  out.push_back(in);
  out.resize(n);
  return out;
}

std::vector<Field> fields(std::string_view block) {
  std::vector<Field> out;
  while (!block.empty()) {
    const std::size_t nl = std::min(block.find('\n'), block.size());
    const std::string_view line = block.substr(0, nl);
    const std::size_t colon = std::min(line.find(':'), line.size());
    out.emplace_back(std::string(line.substr(0, colon)), std::string(line.substr(std::min(colon + 1, line.size()))));
    block.remove_prefix(std::min(nl + 1, block.size()));
  }
  return out;
}

void check_headers(const std::vector<Field>& in) {
  const Inbound inbound = filter_request(in);
  if (inbound.refused && !inbound.forward.empty()) std::abort();
  for (const auto& [name, value] : inbound.forward) {
    if (forgemeter::core_detail::istarts_with(name, kForgemeterPrefix) || is_hop_by_hop(name)) std::abort();
    if (why_bad_field(name, value)) std::abort();
  }
  for (const auto& [name, value] : filter_response(in))
    if (is_hop_by_hop(name) || why_bad_field(name, value)) std::abort();
}

void check_header_rewrite(const RewrittenHeader& h) {
  if (h.refused && !h.value.empty()) std::abort();
  if (h.value.size() > 2 * kMaxRewrittenHeader + 4096) std::abort();
  for (unsigned char c : h.value)
    if (c < 0x20 || c == 0x7f) std::abort();
}

void check_body(const UrlRewriter& r, std::string_view body, std::string_view splits) {
  BodyRewriter whole(r);
  std::string expected;
  whole.write(body, expected);
  whole.finish(expected);
  BodyRewriter parts(r);
  std::string got;
  std::size_t at = 0;
  for (std::size_t i = 0; at < body.size(); ++i) {
    const std::size_t n = i < splits.size() ? static_cast<unsigned char>(splits[i]) : body.size() - at;
    parts.write(body.substr(at, n), got);
    at += std::min(n, body.size() - at);
  }
  parts.finish(got);
  if (got != expected) std::abort();
  // Growth: at most the public base per opening quote.
  if (expected.size() > body.size() + (body.size() / 2 + 1) * r.public_base().size()) std::abort();
}

// The equalizer's reading: a scope written one way reads back the same, and
// with no App given nothing verifies, however the JWT is made.
void check_app_token_ask(std::string_view body, std::string_view authorization) {
  if (const auto scope = canonical_scope(body); scope && canonical_scope(*scope) != scope) std::abort();
  static const forgemeter::appauth::AppKeys no_apps;
  const auto jwt = forgemeter::appauth::bearer_of(authorization).value_or(authorization);
  if (!std::holds_alternative<std::string>(forgemeter::appauth::verify_app_jwt(jwt, no_apps, {}))) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const auto s = segments(in, 5);
  check_headers(fields(s[2]));
  const bool usable = !UrlRewriter::check(s[0], s[1]);
  const UrlRewriter r(usable ? s[0] : "https://api.github.com", usable ? s[1] : "http://127.0.0.1:8080/lanes/a");
  check_header_rewrite(r.location(s[2]));
  check_header_rewrite(r.link(s[2]));
  check_body(r, s[3], s[4]);
  check_app_token_ask(s[3], s[2]);
  if (const auto base = public_base("http", s[0], s[1]); base && UrlRewriter::check(*base, *base)) std::abort();
  return 0;
}
