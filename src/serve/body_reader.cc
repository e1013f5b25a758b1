// BodyReader (body_reader.h).
#include "serve/body_reader.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace forgemeter::serve {

long BodyReader::read(char* out, std::size_t max) {
  core_detail::UniqueLock lock(mu_);
  arrived_.wait(lock.native(), [&]() REQUIRES(mu_) { return !held_.empty() || state_ != State::open; });
  if (held_.empty()) return state_ == State::finished ? 0 : -1;
  const std::size_t n = std::min(max, held_.size());
  std::memcpy(out, held_.data(), n);
  held_.erase(0, n);
  taken_ += n;
  // Half the buffer free: the parked connection reads again.
  if (wake_ && held_.size() <= buffer_ / 2) std::exchange(wake_, nullptr)();
  return static_cast<long>(n);
}

std::uint64_t BodyReader::taken() const {
  core_detail::MutexLock lock(mu_);
  return taken_;
}

bool BodyReader::push(std::string_view bytes, const std::function<void()>& park, std::function<void()> wake) {
  core_detail::MutexLock lock(mu_);
  if (abandoned_ || state_ != State::open) return true;
  held_.append(bytes);
  arrived_.notify_all();
  if (held_.size() < buffer_) return true;
  wake_ = std::move(wake);
  park();
  return false;
}

void BodyReader::finish() {
  core_detail::MutexLock lock(mu_);
  if (state_ == State::open) state_ = State::finished;
  arrived_.notify_all();
}

void BodyReader::fail() {
  core_detail::MutexLock lock(mu_);
  if (state_ == State::open) state_ = State::failed;
  wake_ = nullptr;  // the connection is gone: nothing may resume it
  arrived_.notify_all();
}

void BodyReader::abandon() {
  core_detail::MutexLock lock(mu_);
  abandoned_ = true;
  held_.clear();
  if (wake_) std::exchange(wake_, nullptr)();
}

bool BodyReader::abandoned() const {
  core_detail::MutexLock lock(mu_);
  return abandoned_;
}

}  // namespace forgemeter::serve
