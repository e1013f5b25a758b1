// HeldTokens (held_tokens.h).
#include "proxy/held_tokens.h"

#include <utility>

#include "proxy/installation_tokens.h"

namespace forgemeter::proxy {

HeldTokens::HeldTokens(HeldTokenOptions options)
    : max_(options.max_answers),
      margin_(options.margin),
      clock_(options.clock != nullptr ? *options.clock : system_clock()) {}

std::optional<HeldAnswer> HeldTokens::find(const HeldKey& key) const {
  const UtcMillis now = clock_.now();
  core_detail::MutexLock lock(mu_);
  const auto it = held_.find(key);
  if (it == held_.end() || it->second.answer.expires_at - now <= margin_) return std::nullopt;
  return it->second.answer;
}

void HeldTokens::make_room(UtcMillis now) {
  std::erase_if(held_, [now](const auto& e) { return e.second.answer.expires_at <= now; });
  if (held_.size() < max_ || held_.empty()) return;
  auto soonest = held_.begin();
  for (auto i = held_.begin(); i != held_.end(); ++i)
    if (i->second.answer.expires_at < soonest->second.answer.expires_at) soonest = i;
  held_.erase(soonest);
}

bool HeldTokens::hold(const HeldKey& key, std::string body, std::string content_type) {
  auto answer = token_answer(body);
  const UtcMillis now = clock_.now();
  if (!answer || answer->expires_at - now <= margin_ || max_ == 0) return false;
  Entry e{{std::move(body), std::move(content_type), std::move(answer->token), answer->expires_at}, 0};
  e.token_key = hash_.mac64(e.answer.token);
  core_detail::MutexLock lock(mu_);
  if (!held_.contains(key) && held_.size() >= max_) make_room(now);
  held_.insert_or_assign(key, std::move(e));
  return true;
}

std::size_t HeldTokens::forget(std::string_view token) {
  const std::uint64_t key = hash_.mac64(token);
  core_detail::MutexLock lock(mu_);
  return std::erase_if(held_, [key](const auto& e) { return e.second.token_key == key; });
}

bool HeldTokens::claim(const HeldKey& key) {
  core_detail::MutexLock lock(mu_);
  return minting_.insert(key).second;
}

void HeldTokens::settle(const HeldKey& key) {
  {
    core_detail::MutexLock lock(mu_);
    minting_.erase(key);
  }
  minted_.notify_all();
}

bool HeldTokens::await(const HeldKey& key, std::chrono::milliseconds bound) {
  core_detail::UniqueLock lock(mu_);
  return minted_.wait_for(lock.native(), bound, [&]() REQUIRES(mu_) { return !minting_.contains(key); });
}

std::size_t HeldTokens::size() const {
  core_detail::MutexLock lock(mu_);
  return held_.size();
}

}  // namespace forgemeter::proxy
