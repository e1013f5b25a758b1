// keyed_hash.h — HMAC-SHA-256 under a random key drawn once per object:
// how the proxy keeps and shows a credential without keeping or showing
// it (no two processes, and no one without the key, can tell what it was).
// Thread-safety: const methods from many threads at once.
// Errors: the constructor throws std::runtime_error when no random bytes can be had.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace forgemeter::proxy {

class KeyedHash {
 public:
  KeyedHash();

  // The 32 bytes of the MAC of `text`.
  std::array<unsigned char, 32> mac(std::string_view text) const;
  // Its first 8 bytes as a number (big-endian): a map key.
  std::uint64_t mac64(std::string_view text) const;

 private:
  std::array<unsigned char, 32> key_{};
};

// `n`'s lowest `digits` hex digits, zero-padded ("00ab12…").
std::string low_hex(std::uint64_t n, int digits);

}  // namespace forgemeter::proxy
