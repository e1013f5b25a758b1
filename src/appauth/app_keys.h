// app_keys.h — the GitHub Apps whose JWTs this process will believe: each
// App ID with its RSA public key, given once (from PEM text) and then only
// read. Public keys only: a private key handed in is refused, so the process
// that checks JWTs can never mint one.
// Thread-safety: add() while no one reads; once filled, every const method
// from many threads at once (OpenSSL's keys are safe to share for verifying).
// Errors: add() says why a key was not taken; nothing throws but bad_alloc.
#pragma once

#include <openssl/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace forgemeter::appauth {

class AppKeys {  // App ID -> RSA public key; thread-safe to read once filled
 public:
  // Adds one App's public key from PEM text ("BEGIN PUBLIC KEY" or "BEGIN
  // RSA PUBLIC KEY"). Why not, or nullopt: App ID 0, not a PEM RSA public
  // key, an RSA key under 2048 bits, a PRIVATE key given (refused, with how
  // to derive the public one), the App already given.
  std::optional<std::string> add(std::uint64_t app_id, std::string_view pem);

  bool empty() const { return keys_.empty(); }
  std::size_t size() const { return keys_.size(); }
  bool has(std::uint64_t app_id) const { return keys_.count(app_id) != 0; }

  // The App's key, or nullptr: valid while this AppKeys lives, to verify
  // with only (OpenSSL's verifying calls take it non-const).
  EVP_PKEY* key_of(std::uint64_t app_id) const;

 private:
  std::map<std::uint64_t, std::shared_ptr<EVP_PKEY>> keys_;
};

// The largest PEM text add() reads: an RSA-8192 public key is ~1.5 KB.
inline constexpr std::size_t kMaxPemBytes = std::size_t{16} * 1024;

}  // namespace forgemeter::appauth
