// response_cache.h — the kept answers, by key, bounded and least recently
// used first out.
//
// At most CacheOptions::max_entries entries and max_bytes bytes (as
// CacheEntry::bytes counts them) are held; putting one evicts the least
// recently used until both bounds hold. An entry is shared: a request that
// found one keeps it (for the 304 it may get) even if it is evicted or
// replaced meanwhile.
//
// Thread-safety: every method may be called from any thread at once.
// Errors: throws std::bad_alloc only.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/mutex.h"
#include "forgemeter/cache.h"
#include "transport/cache/cache_entry.h"

namespace forgemeter::transport_detail {

class ResponseCache {
 public:
  ResponseCache(std::size_t max_bytes, std::size_t max_entries) : max_bytes_(max_bytes), max_entries_(max_entries) {}
  ResponseCache(const ResponseCache&) = delete;
  ResponseCache& operator=(const ResponseCache&) = delete;

  // The entry under `key` (made the most recently used), or nullptr.
  std::shared_ptr<const CacheEntry> find(const std::string& key);
  // Keeps `e` under `key`, in place of any entry there; one over max_bytes
  // on its own is not kept (and the one it would replace goes): false.
  bool put(const std::string& key, std::shared_ptr<const CacheEntry> e);
  void erase(const std::string& key);
  CacheFigures figures() const;

 private:
  struct Slot {
    std::string key;
    std::shared_ptr<const CacheEntry> entry;
  };
  using Lru = std::list<Slot>;  // most recently used first
  void drop(Lru::iterator it) REQUIRES(mu_);

  const std::size_t max_bytes_, max_entries_;
  mutable core_detail::Mutex mu_;
  Lru lru_ GUARDED_BY(mu_);
  std::unordered_map<std::string_view, Lru::iterator> index_ GUARDED_BY(mu_);  // views each slot's key
  std::size_t bytes_ GUARDED_BY(mu_) = 0;
};

}  // namespace forgemeter::transport_detail
