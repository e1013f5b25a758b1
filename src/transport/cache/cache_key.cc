#include "transport/cache/cache_key.h"

#include <cstdint>
#include <random>

#include "core/ascii.h"
#include "core/origin.h"
#include "forgemeter/url.h"

namespace forgemeter::transport_detail {
namespace {

using core_detail::iequals;

bool any_of_names(std::string_view name, std::initializer_list<std::string_view> names) noexcept {
  for (auto n : names)
    if (iequals(name, n)) return true;
  return false;
}

// Appends `s` length-prefixed, so no two field lists make the same input.
void field(std::string& to, std::string_view s) {
  const auto n = static_cast<std::uint64_t>(s.size());
  for (int i = 0; i < 8; ++i) to.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  to.append(s);
}

std::string mac(const SipKey& secret, const std::string& input) {
  const Sip128 h = siphash128(secret, input);
  return std::string(reinterpret_cast<const char*>(h.data()), h.size());
}

}  // namespace

bool cache_takes(const Request& r) noexcept {
  if (r.method != "GET" || !r.body.empty() || r.body_source || api_of_url(r.url) == Api::graphql) return false;
  for (const auto& [name, value] : r.headers)
    if (any_of_names(name, {"if-none-match", "if-modified-since", "if-match", "if-unmodified-since", "if-range",
                            "range", "cache-control"}))
      return false;
  return true;
}

KeyHasher::KeyHasher() {
  std::random_device os;  // the kernel's getrandom(2) on Linux; throws std::runtime_error without one
  for (auto& k : secret_) k = (std::uint64_t(os()) << 32) | os();
}

std::string KeyHasher::key(const Request& r) const {
  std::string in;
  in.reserve(64 + r.url.size() + r.bearer.size());
  field(in, r.method);
  field(in, r.url);
  field(in, std::to_string(r.installation));
  field(in, r.bearer);
  // A 3xx answers a request that does not follow redirects, another hop one
  // that does. Only the rarer kind is marked (no credential header is named so).
  if (!r.follow_redirects) field(in, "no-follow");
  for (const auto& [name, value] : r.headers)
    if (core_detail::is_credential_header(name)) {
      field(in, core_detail::ascii_lowercase(name));
      field(in, value);
    }
  return mac(secret_, in);
}

std::string KeyHasher::vary_digest(const Request& r, std::span<const std::string> names) const {
  std::string in;
  for (const auto& want : names) {
    field(in, want);
    for (const auto& [name, value] : r.headers)
      if (iequals(name, want)) field(in, value);
  }
  return mac(secret_, in);
}

}  // namespace forgemeter::transport_detail
