// app_scope.h — what a `POST /app/installations/{id}/access_tokens` asks
// for, written one way, so that two requests asking the same of the forge
// are known to: the key under which the proxy holds an installation token
// (held_tokens.h). The body GitHub reads is `repositories` (names),
// `repository_ids` and `permissions` (name -> level); the canonical scope is
// that JSON with keys sorted and each array sorted and de-duplicated. An
// absent, empty or `{}` body asks for everything the installation may grant:
// the scope `{}`.
//
// Anything else has no scope and the request is forwarded untouched: an
// unknown key, a value of another type, a key given twice (the proxy and the
// forge could read different ones), more than kMaxScopeItems in an array or
// object, a string past kMaxScopeString bytes, nesting past permissions'
// object, or a body past kMaxScopeBody bytes. The parse is a bounded SAX
// walk: hostile JSON costs its length and no more, and never recursion.
// Thread-safety: pure functions. Errors: none (but std::bad_alloc).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace forgemeter::proxy {

inline constexpr std::size_t kMaxScopeBody = std::size_t{64} * 1024;
inline constexpr std::size_t kMaxScopeItems = 500;  // GitHub's bound on repositories per token
inline constexpr std::size_t kMaxScopeString = 256;

// The canonical scope of an access_tokens request's body, or nullopt when
// it has none (then it is never answered from a held token).
std::optional<std::string> canonical_scope(std::string_view body);

}  // namespace forgemeter::proxy
