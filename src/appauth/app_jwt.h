// app_jwt.h — a GitHub App's JWT, checked as GitHub checks it: RS256 only,
// signed by the key of the App its `iss` names, within its time window.
// What a proxy or the loopback forge believes before it acts for an App.
// Thread-safety: pure functions (the keys only read). Errors: as values;
// nothing throws (a JSON or OpenSSL failure is a reason, not an exception).
#pragma once

#include "appauth/app_keys.h"
#include "forgemeter/clock.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace forgemeter::appauth {

struct AppJwt {
  std::uint64_t app_id = 0;
  UtcMillis issued_at{}, expires_at{};
};

// A JWT longer than this is refused unread (GitHub's are ~600 bytes).
inline constexpr std::size_t kMaxJwtBytes = std::size_t{8} * 1024;
// GitHub's rules: `iat` at most 60 s ahead of its clock, a life (exp - iat)
// of at most 10 minutes, with 60 s of leeway for the client's clock.
inline constexpr std::chrono::seconds kIatLeeway{60};
inline constexpr std::chrono::seconds kLongestLife{10 * 60 + 60};

// The App whose key signed `jwt`, or why it does not verify. RS256 only
// (the header's alg exactly "RS256"; "none", HS256, RS512... refused before
// any key is used); `iss` (a JSON number or decimal string, as GitHub
// accepts) one of `keys`' Apps; signature RSASSA-PKCS1-v1_5 SHA-256 checked
// with EVP_DigestVerify under that App's key; `exp` > now; `iat` <= now +
// 60 s; exp - iat <= 10 min + 60 s. `iat` and `exp` are whole seconds.
std::variant<AppJwt, std::string> verify_app_jwt(std::string_view jwt, const AppKeys& keys, UtcMillis now);

// The JWT of an `Authorization: Bearer <jwt>` value, or nullopt (the scheme
// in any case; spaces around the JWT ignored; none inside it).
std::optional<std::string_view> bearer_of(std::string_view authorization);

}  // namespace forgemeter::appauth
