// The hot path's table: request counts of one shard for the hour being
// counted, in a small open-addressing hash table keyed by (host bytes, api,
// installation, lane). The lane is an interned pointer, so it hashes for free;
// the host is hashed as given (display form is made once per hour, at the turn).
//
// Memory is bounded: past `max_keys` distinct keys in one hour (only a forge
// redirecting to host after host gets there), a new key is counted without its
// host, as `folded`, which the hour's lines show under `(other hosts)`.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "forgemeter/meter.h"

namespace forgemeter::meter {

// A well-mixed non-zero hash of a request key.
inline std::uint64_t hash_key(const RequestKey& key) noexcept {
  constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
  const char* p = key.host.data();
  std::size_t n = key.host.size();
  std::uint64_t h = n * kMul;
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = std::rotl((h ^ w) * kMul, 31);
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = std::rotl((h ^ w) * kMul, 31);
  }
  const auto lane = reinterpret_cast<std::uintptr_t>(key.lane.name().data());
  h ^=
      (key.installation * 0xC2B2AE3D27D4EB4Full) ^ (lane * 0x165667B19E3779F9ull) ^ static_cast<std::uint64_t>(key.api);
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  return h | 1;  // 0 marks an empty slot
}

class CountTable {
 public:
  struct Slot {
    std::uint64_t hash = 0;  // 0: empty
    std::uint64_t count = 0;
    std::uint64_t first_seen = 0;
    std::uint64_t installation = 0;
    Lane lane = Lane::other();
    Api api = Api::rest;
    bool folded = false;  // host dropped: counted under (other hosts)
    std::string host;
  };

  explicit CountTable(std::size_t max_keys = 4096) : max_keys_(max_keys) {}

  // Adds one request; a key new to this table takes its first-seen number from `seq`.
  void add(std::uint64_t hash, const RequestKey& key, std::atomic<std::uint64_t>& seq) {
    if (find(hash, key, false)) return;
    if (used_ < max_keys_) {
      insert(hash, key, false, seq.fetch_add(1, std::memory_order_relaxed));
      return;
    }
    RequestKey hostless = key;
    hostless.host = {};
    const std::uint64_t h = hash_key(hostless) ^ 2;  // still odd: non-zero
    if (!find(h, hostless, true)) insert(h, hostless, true, seq.fetch_add(1, std::memory_order_relaxed));
  }

  bool empty() const noexcept { return used_ == 0; }
  std::size_t size() const noexcept { return used_; }  // distinct keys, folded ones included

  template <class F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_)
      if (s.hash != 0) f(s);
  }

 private:
  // Counts one more for an existing key; false when the key is new.
  bool find(std::uint64_t hash, const RequestKey& key, bool folded) {
    if (slots_.empty()) return false;
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.hash == 0) return false;
      if (s.hash == hash && s.api == key.api && s.installation == key.installation && s.lane == key.lane &&
          s.folded == folded && s.host == key.host) {
        ++s.count;
        return true;
      }
    }
  }

  void insert(std::uint64_t hash, const RequestKey& key, bool folded, std::uint64_t first_seen) {
    if ((used_ + 1) * 2 > slots_.size()) grow();
    std::size_t i = hash & mask_;
    while (slots_[i].hash != 0) i = (i + 1) & mask_;
    slots_[i] = Slot{hash, 1, first_seen, key.installation, key.lane, key.api, folded, std::string(key.host)};
    ++used_;
  }

  void grow() {
    std::vector<Slot> old(slots_.empty() ? 16 : slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (Slot& s : old) {
      if (s.hash == 0) continue;
      std::size_t i = s.hash & mask_;
      while (slots_[i].hash != 0) i = (i + 1) & mask_;
      slots_[i] = std::move(s);
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t used_ = 0;
  std::size_t max_keys_;
};

}  // namespace forgemeter::meter
