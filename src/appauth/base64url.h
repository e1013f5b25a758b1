// base64url.h — base64url without padding (RFC 7515 §2), the alphabet of a
// JWT's three parts: what a verifier decodes and what an App's client (the
// demo's, the tests') encodes. Encoding is no minting: without a private
// key nothing here can sign.
// Thread-safety: pure functions. Errors: decode says nullopt; nothing throws
// but bad_alloc.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace forgemeter::appauth {

std::string base64url_encode(std::string_view bytes);

// The bytes of `text`, or nullopt: a character outside the alphabet, or a
// length no encoding has (4k + 1).
std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace forgemeter::appauth
