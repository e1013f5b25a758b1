#include "report/find_marker.h"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace forgemeter::report {

namespace {

constexpr std::size_t kSecond = 3;  // offset of the second byte compared

const char* confirm(const char* at, unsigned mask, const char* end, std::string_view m) {
  while (mask != 0) {
    const char* c = at + __builtin_ctz(mask);
    if (c + m.size() <= end && std::memcmp(c + 1, m.data() + 1, m.size() - 1) == 0) return c;
    mask &= mask - 1;
  }
  return nullptr;
}

const char* tail(const char* p, const char* end, std::string_view m) {
  if (end - p < static_cast<std::ptrdiff_t>(m.size())) return nullptr;
  return static_cast<const char*>(memmem(p, static_cast<std::size_t>(end - p), m.data(), m.size()));
}

std::uint64_t count_plain(const char* p, const char* end) {
  std::uint64_t n = 0;
  for (; p < end; ++p) n += *p == '\n';
  return n;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) const char* find_avx2(const char* p, const char* end, std::string_view m) {
  const __m256i first = _mm256_set1_epi8(m[0]), second = _mm256_set1_epi8(m[kSecond]);
  auto hits = [&](const char* at) __attribute__((target("avx2"))) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + kSecond));
    return _mm256_and_si256(_mm256_cmpeq_epi8(a, first), _mm256_cmpeq_epi8(b, second));
  };
  // 64 bytes a round with one test: candidates are rare in log text.
  while (end - p >= static_cast<std::ptrdiff_t>(64 + kSecond)) {
    const __m256i lo = hits(p), hi = hits(p + 32);
    if (!_mm256_testz_si256(_mm256_or_si256(lo, hi), _mm256_or_si256(lo, hi))) {
      if (const char* hit = confirm(p, static_cast<unsigned>(_mm256_movemask_epi8(lo)), end, m)) return hit;
      if (const char* hit = confirm(p + 32, static_cast<unsigned>(_mm256_movemask_epi8(hi)), end, m)) return hit;
    }
    p += 64;
  }
  while (end - p >= static_cast<std::ptrdiff_t>(32 + kSecond)) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + kSecond));
    auto mask = static_cast<unsigned>(
        _mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(a, first), _mm256_cmpeq_epi8(b, second))));
    if (mask != 0)
      if (const char* hit = confirm(p, mask, end, m)) return hit;
    p += 32;
  }
  return tail(p, end, m);
}

const char* find_sse2(const char* p, const char* end, std::string_view m) {
  const __m128i first = _mm_set1_epi8(m[0]), second = _mm_set1_epi8(m[kSecond]);
  while (end - p >= static_cast<std::ptrdiff_t>(16 + kSecond)) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + kSecond));
    auto mask =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, second))));
    if (mask != 0)
      if (const char* hit = confirm(p, mask, end, m)) return hit;
    p += 16;
  }
  return tail(p, end, m);
}

__attribute__((target("avx2"))) std::uint64_t count_avx2(const char* p, const char* end) {
  const __m256i nl = _mm256_set1_epi8('\n');
  std::uint64_t n = 0;
  for (; end - p >= 32; p += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    n += static_cast<unsigned>(
        __builtin_popcount(static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, nl)))));
  }
  return n + count_plain(p, end);
}

const bool kHasAvx2 = __builtin_cpu_supports("avx2");
#endif

}  // namespace

std::uint64_t count_newlines(const char* p, const char* end) noexcept {
#if defined(__x86_64__)
  if (kHasAvx2) return count_avx2(p, end);
#endif
  return count_plain(p, end);
}

const char* find_marker(const char* p, const char* end, std::string_view marker) noexcept {
  if (marker.size() <= kSecond) return tail(p, end, marker);
#if defined(__x86_64__)
  return kHasAvx2 ? find_avx2(p, end, marker) : find_sse2(p, end, marker);
#else
  return tail(p, end, marker);
#endif
}

}  // namespace forgemeter::report
