// app_jwt_mint.h — a GitHub App's side, for tests: RSA-2048 key pairs made
// at test time (no key lives in the repository) and JWTs minted with them,
// well-formed or broken on purpose (alg "none", HS256 keyed with the public
// key, RS512, any claims). Keys are made once per process and kept: RSA
// key generation takes seconds under ASan.
// Thread-safety: every function from many threads at once.
// Errors: a failure of OpenSSL here is a broken test machine: it throws.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fmtest {

struct AppKeyPair {
  std::string public_pem;      // "BEGIN PUBLIC KEY" (SubjectPublicKeyInfo): what a forge or proxy is given
  std::string rsa_public_pem;  // "BEGIN RSA PUBLIC KEY" (PKCS#1): the same key, the other armour
  std::string private_pem;     // "BEGIN PRIVATE KEY" (PKCS#8): what the App keeps
};

// The process's `which`-th RSA-2048 key pair (0, 1, 2...), made on first use.
const AppKeyPair& app_key_pair(int which = 0);

// The public PEM of a fresh RSA key of `bits` (a weak one, for refusals).
std::string rsa_public_pem_of_bits(int bits);

// An App JWT: header {"alg": alg, "typ": "JWT"}, payload {"iat", "exp",
// "iss": app_id as a number}, signed with `private_pem` per `alg`: RS256 or
// RS512 (RSASSA-PKCS1-v1_5), HS256 (HMAC keyed with the PEM of the public
// half: the classic algorithm confusion), "none" (an empty signature).
// iat, exp: seconds since the epoch.
std::string mint(std::uint64_t app_id, std::string_view private_pem, std::int64_t iat, std::int64_t exp,
                 std::string_view alg = "RS256");

// A JWT of any header and payload (JSON text, taken as given), signed as
// mint() signs for the header's `alg`.
std::string mint_raw(std::string_view header_json, std::string_view payload_json, std::string_view private_pem);

// base64url without padding (RFC 7515 §2).
std::string base64url(std::string_view bytes);

// Seconds since the epoch, now (JWTs are minted on real time).
std::int64_t unix_now();

}  // namespace fmtest
