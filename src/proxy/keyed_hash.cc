#include "proxy/keyed_hash.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace forgemeter::proxy {

KeyedHash::KeyedHash() {
  if (RAND_bytes(key_.data(), static_cast<int>(key_.size())) != 1)
    throw std::runtime_error("proxy: no random bytes for the credentials' key");
}

std::array<unsigned char, 32> KeyedHash::mac(std::string_view text) const {
  std::array<unsigned char, 32> out{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()), reinterpret_cast<const unsigned char*>(text.data()),
       text.size(), out.data(), &len);
  return out;
}

std::uint64_t KeyedHash::mac64(std::string_view text) const {
  const auto m = mac(text);
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n = (n << 8) | m[i];
  return n;
}

std::string low_hex(std::uint64_t n, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(static_cast<std::size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, n >>= 4) out[static_cast<std::size_t>(i)] = kHex[n & 15];
  return out;
}

}  // namespace forgemeter::proxy
