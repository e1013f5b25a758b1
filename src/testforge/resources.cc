#include "testforge/resources.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <time.h>

#include <algorithm>
#include <stdexcept>

#include "core/ascii.h"

namespace forgemeter::testforge {
namespace {

std::int64_t whole_seconds(UtcMillis t) {
  const std::int64_t ms = t.time_since_epoch().count();
  return ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
}

using core_detail::trimmed;

// An entity-tag without its weakness: W/"x" and "x" compare equal (RFC 9110 §8.8.3.2).
std::string_view opaque(std::string_view tag) {
  if (tag.starts_with("W/")) tag.remove_prefix(2);
  return tag;
}

// If-None-Match: `*`, or a comma-separated list of entity-tags, any of which may match.
bool none_match_hits(std::string_view header, std::string_view etag) {
  header = trimmed(header);
  if (header == "*") return true;
  while (!header.empty()) {
    const std::size_t comma = header.find(',');
    const std::string_view tag = trimmed(header.substr(0, comma));
    if (!tag.empty() && opaque(tag) == opaque(etag)) return true;
    if (comma == std::string_view::npos) break;
    header.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

Resources::Resources(UtcMillis start, std::size_t pulls) : start_(whole_seconds(start)), pulls_(pulls) {
  if (RAND_bytes(key_.data(), static_cast<int>(key_.size())) != 1)
    throw std::runtime_error("loopback forge: no random bytes for the ETag key");
}

Resources::Version Resources::current(std::string_view path) const {
  std::lock_guard lock(mu_);
  const auto it = changed_.find(path);
  return it == changed_.end() ? Version{0, start_} : it->second;
}

std::uint64_t Resources::bump(std::string_view path, UtcMillis now) {
  std::lock_guard lock(mu_);
  auto it = changed_.find(path);
  if (it == changed_.end()) it = changed_.emplace(std::string(path), Version{0, start_}).first;
  Version& v = it->second;
  ++v.n;
  v.modified = std::max(whole_seconds(now), v.modified + 1);
  return v.n;
}

std::uint64_t Resources::version(std::string_view path) const { return current(path).n; }

std::string Resources::keyed_hex(std::string_view what, std::size_t hex_digits) const {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()), reinterpret_cast<const unsigned char*>(what.data()),
       what.size(), mac, &len);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len && out.size() < hex_digits; ++i) {
    out += hex[mac[i] >> 4];
    out += hex[mac[i] & 15];
  }
  return out;
}

Representation Resources::represent(const Asked& a) const {
  const Version v = current(a.path);
  Representation r;
  r.version = v.n;
  r.last_modified = v.modified;
  // A NUL before each field, which no header value holds: no two inputs hash alike.
  const std::string version = std::to_string(v.n);
  std::string in = "etag";
  for (std::string_view part : {a.path, std::string_view(version), a.authorization, a.accept, a.accept_encoding}) {
    in += '\0';
    in += part;
  }
  if (!a.variant.empty()) in += std::string(1, '\0') + std::string(a.variant);  // none: the tags as before
  r.etag = "\"" + keyed_hex(in, 32) + "\"";
  if (!a.authorization.empty()) r.viewer = keyed_hex(std::string("viewer") + '\0' + std::string(a.authorization), 16);
  if (!a.accept.empty() && a.accept != "*/*")
    r.media = keyed_hex(std::string("media") + '\0' + std::string(a.accept), 16);
  return r;
}

std::string body_of(std::string_view path, const Representation& r) {
  std::string body = R"({"path":")" + std::string(path) + R"(","state":"open")";
  if (r.version > 0) body += R"(,"version":)" + std::to_string(r.version);
  if (!r.viewer.empty()) body += R"(,"viewer":")" + r.viewer + "\"";
  if (!r.media.empty()) body += R"(,"media":")" + r.media + "\"";
  return body + "}";
}

bool not_modified(const Representation& r, std::optional<std::string_view> if_none_match,
                  std::optional<std::string_view> if_modified_since) {
  if (if_none_match) return none_match_hits(*if_none_match, r.etag);
  if (!if_modified_since) return false;
  const auto since = parse_http_date(*if_modified_since);
  return since && r.last_modified <= *since;
}

std::string http_date(std::int64_t epoch_seconds) {
  const time_t t = static_cast<time_t>(epoch_seconds);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buf[40];
  const std::size_t n = strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return std::string(buf, n);
}

std::optional<std::int64_t> parse_http_date(std::string_view text) {
  if (text.size() != 29) return std::nullopt;  // "Sun, 06 Nov 1994 08:49:37 GMT"
  const std::string s(text);
  struct tm tm {};
  const char* end = strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<std::int64_t>(timegm(&tm));
}

}  // namespace forgemeter::testforge
