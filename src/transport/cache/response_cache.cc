#include "transport/cache/response_cache.h"

namespace forgemeter::transport_detail {

std::shared_ptr<const CacheEntry> ResponseCache::find(const std::string& key) {
  core_detail::MutexLock lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);  // iterators stay valid
  return it->second->entry;
}

bool ResponseCache::put(const std::string& key, std::shared_ptr<const CacheEntry> e) {
  const std::size_t bytes = e->bytes;
  core_detail::MutexLock lock(mu_);
  if (auto it = index_.find(key); it != index_.end()) drop(it->second);
  if (bytes > max_bytes_ || max_entries_ == 0) return false;
  while (!lru_.empty() && (bytes_ + bytes > max_bytes_ || lru_.size() >= max_entries_)) drop(std::prev(lru_.end()));
  lru_.push_front(Slot{key, std::move(e)});
  try {
    index_.emplace(lru_.front().key, lru_.begin());
  } catch (...) {
    lru_.pop_front();
    throw;
  }
  bytes_ += bytes;
  return true;
}

void ResponseCache::erase(const std::string& key) {
  core_detail::MutexLock lock(mu_);
  if (auto it = index_.find(key); it != index_.end()) drop(it->second);
}

CacheFigures ResponseCache::figures() const {
  core_detail::MutexLock lock(mu_);
  return {.entries = lru_.size(), .bytes = bytes_};
}

void ResponseCache::drop(Lru::iterator it) {
  bytes_ -= it->entry->bytes;
  index_.erase(it->key);
  lru_.erase(it);
}

}  // namespace forgemeter::transport_detail
