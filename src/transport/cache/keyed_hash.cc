#include "transport/cache/keyed_hash.h"

#include <bit>
#include <cstring>

namespace forgemeter::transport_detail {
namespace {

struct State {
  std::uint64_t v0, v1, v2, v3;
  void round() noexcept {
    v0 += v1;
    v1 = std::rotl(v1, 13) ^ v0;
    v0 = std::rotl(v0, 32);
    v2 += v3;
    v3 = std::rotl(v3, 16) ^ v2;
    v0 += v3;
    v3 = std::rotl(v3, 21) ^ v0;
    v2 += v1;
    v1 = std::rotl(v1, 17) ^ v2;
    v2 = std::rotl(v2, 32);
  }
  void absorb(std::uint64_t m) noexcept {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  std::uint64_t squeeze() noexcept {
    for (int i = 0; i < 4; ++i) round();
    return v0 ^ v1 ^ v2 ^ v3;
  }
};

std::uint64_t load_le(const char* p, std::size_t n) noexcept {
  std::uint64_t m = 0;
  for (std::size_t i = 0; i < n; ++i) m |= std::uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
  return m;
}

void store_le(std::uint64_t v, unsigned char* out) noexcept {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
}

}  // namespace

Sip128 siphash128(const SipKey& key, std::string_view message) noexcept {
  State s{key[0] ^ 0x736f6d6570736575ULL, key[1] ^ 0x646f72616e646f6dULL ^ 0xee, key[0] ^ 0x6c7967656e657261ULL,
          key[1] ^ 0x7465646279746573ULL};
  const char* p = message.data();
  std::size_t left = message.size();
  for (; left >= 8; p += 8, left -= 8) s.absorb(load_le(p, 8));
  s.absorb(load_le(p, left) | (std::uint64_t(message.size() & 0xff) << 56));
  Sip128 out;
  s.v2 ^= 0xee;
  store_le(s.squeeze(), out.data());
  s.v1 ^= 0xdd;
  store_le(s.squeeze(), out.data() + 8);
  return out;
}

}  // namespace forgemeter::transport_detail
