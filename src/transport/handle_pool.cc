#include "transport/handle_pool.h"

#include <stdexcept>

namespace forgemeter::transport_detail {
namespace {

void lock_share(CURL*, curl_lock_data data, curl_lock_access, void* locks) {
  static_cast<std::mutex*>(locks)[data].lock();
}
void unlock_share(CURL*, curl_lock_data data, void* locks) { static_cast<std::mutex*>(locks)[data].unlock(); }

}  // namespace

void ensure_curl_global() {
  static const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (rc != CURLE_OK) throw std::runtime_error(std::string("libcurl: ") + curl_easy_strerror(rc));
}

HandlePool::HandlePool() {
  ensure_curl_global();
  share_ = curl_share_init();
  if (!share_) throw std::runtime_error("libcurl: cannot create a share handle");
  curl_share_setopt(share_, CURLSHOPT_USERDATA, share_locks_.data());
  curl_share_setopt(share_, CURLSHOPT_LOCKFUNC, lock_share);
  curl_share_setopt(share_, CURLSHOPT_UNLOCKFUNC, unlock_share);
  curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
}

HandlePool::~HandlePool() {
  delete hot_.exchange(nullptr);
  idle_.clear();
  curl_share_cleanup(share_);
}

HandlePool::Handle HandlePool::take() {
  if (Pooled* hot = hot_.exchange(nullptr, std::memory_order_acq_rel))
    return Handle(this, std::unique_ptr<Pooled>(hot));
  {
    core_detail::MutexLock lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<Pooled> p = std::move(idle_.back());
      idle_.pop_back();
      return Handle(this, std::move(p));
    }
  }
  auto p = std::make_unique<Pooled>();
  p->h = curl_easy_init();
  if (!p->h) throw std::bad_alloc();
  curl_easy_setopt(p->h, CURLOPT_SHARE, share_);
  return Handle(this, std::move(p));
}

void HandlePool::give_back(std::unique_ptr<Pooled> p) noexcept {
  Pooled* displaced = hot_.exchange(p.release(), std::memory_order_acq_rel);
  if (!displaced) return;
  try {
    core_detail::MutexLock lock(mu_);
    idle_.emplace_back(displaced);
  } catch (...) {
    delete displaced;
  }
}

}  // namespace forgemeter::transport_detail
