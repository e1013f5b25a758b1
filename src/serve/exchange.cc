// Reply, ServeRequest and Exchange (exchange.h, exchange_state.h).
#include "serve/exchange_state.h"

#include <algorithm>
#include <cstring>

#include "core/ascii.h"
#include "serve/body_reader.h"

namespace forgemeter::serve {

std::optional<std::string_view> ServeRequest::header(std::string_view name) const noexcept {
  for (const auto& [n, v] : headers)
    if (core_detail::iequals(n, name)) return v;
  return std::nullopt;
}

std::optional<std::uint64_t> ServeRequest::content_length() const noexcept {
  auto length = header("Content-Length");
  if (!length) return std::nullopt;
  std::uint64_t n = 0;
  for (char ch : *length) n = (ch >= '0' && ch <= '9' && n < (1ULL << 60)) ? n * 10 + (ch - '0') : (1ULL << 61);
  return n;
}

bool Reply::answer(int status, std::vector<Field> headers, std::string body) {
  return exchange_->answer(status, std::move(headers), std::move(body));
}
bool Reply::start_stream(int status, std::vector<Field> headers) {
  return exchange_->start_stream(status, std::move(headers));
}
bool Reply::write(std::string_view bytes) { return exchange_->write(bytes); }
bool Reply::write_within(std::string_view bytes, std::chrono::milliseconds patience) {
  return exchange_->write_within(bytes, patience);
}
bool Reply::end() { return exchange_->end(); }
bool Reply::abort() { return exchange_->abort(); }
bool Reply::gone() const noexcept { return exchange_->gone(); }
void Reply::log_field(std::string name, std::string value) { exchange_->log_field(std::move(name), std::move(value)); }

bool Exchange::answer(int status, std::vector<Field> headers, std::string body) {
  core_detail::MutexLock lock(mu_);
  if (phase_ != Phase::waiting || gone_) return false;
  phase_ = Phase::answered;
  status_ = status;
  headers_ = std::move(headers);
  body_ = std::move(body);
  bytes_ = body_.size();
  abandon_body();
  wake_locked();
  return true;
}

bool Exchange::start_stream(int status, std::vector<Field> headers) {
  core_detail::MutexLock lock(mu_);
  if (phase_ != Phase::waiting || gone_) return false;
  phase_ = Phase::streaming;
  status_ = status;
  headers_ = std::move(headers);
  abandon_body();
  wake_locked();
  return true;
}

bool Exchange::write(std::string_view bytes) {
  core_detail::MutexLock lock(mu_);
  if (phase_ != Phase::streaming || gone_) return false;
  // A reader that does not read is not given the process's memory.
  if (body_.size() + bytes.size() > max_stream_buffer_) return false;
  body_.append(bytes);
  wake_locked();
  return true;
}

bool Exchange::write_within(std::string_view bytes, Duration patience) {
  core_detail::UniqueLock lock(mu_);
  // A piece larger than the whole buffer goes in once the buffer is empty.
  const auto room = [&]() REQUIRES(mu_) {
    return phase_ != Phase::streaming || gone_ || body_.empty() || body_.size() + bytes.size() <= max_stream_buffer_;
  };
  if (!room_.wait_for(lock.native(), patience, room)) return false;
  if (phase_ != Phase::streaming || gone_) return false;
  body_.append(bytes);
  wake_locked();
  return true;
}

bool Exchange::end() {
  core_detail::MutexLock lock(mu_);
  if (phase_ != Phase::streaming || gone_) return false;
  phase_ = Phase::ended;
  wake_locked();
  return true;
}

bool Exchange::abort() {
  core_detail::MutexLock lock(mu_);
  if (phase_ != Phase::streaming || gone_) return false;
  phase_ = Phase::aborted;
  wake_locked();
  return true;
}

bool Exchange::gone() const {
  core_detail::MutexLock lock(mu_);
  return gone_;
}

void Exchange::log_field(std::string name, std::string value) {
  core_detail::MutexLock lock(mu_);
  fields_.emplace_back(std::move(name), std::move(value));
}

void Exchange::set_connection(std::function<void()> park, std::function<void()> wake) {
  core_detail::MutexLock lock(mu_);
  park_ = std::move(park);
  wake_ = std::move(wake);
}

void Exchange::abandon_body() {
  if (request_.body_reader) request_.body_reader->abandon();
}

void Exchange::wake_locked() {
  if (parked_ && wake_) {
    parked_ = false;
    wake_();
  }
}

bool Exchange::ready_or_park() {
  core_detail::MutexLock lock(mu_);
  if (phase_ != Phase::waiting || !park_) return true;
  parked_ = true;
  park_();
  return false;
}

Exchange::Head Exchange::take_head() {
  core_detail::MutexLock lock(mu_);
  Head head{phase_, status_, std::move(headers_), {}};
  if (phase_ == Phase::answered) head.body = std::move(body_);
  return head;
}

long Exchange::read_stream(char* out, std::size_t max) {
  core_detail::MutexLock lock(mu_);
  if (gone_) return -2;
  if (!body_.empty()) {
    const std::size_t n = std::min(max, body_.size());
    std::memcpy(out, body_.data(), n);
    body_.erase(0, n);
    bytes_ += n;
    room_.notify_all();
    return static_cast<long>(n);
  }
  if (phase_ == Phase::aborted) return -2;
  if (phase_ == Phase::ended || !park_) return -1;
  parked_ = true;
  park_();
  return 0;
}

void Exchange::completed(bool client_gone) {
  core_detail::MutexLock lock(mu_);
  gone_ = true;
  park_ = nullptr;  // the connection is no more: nothing may park or resume it
  wake_ = nullptr;
  room_.notify_all();
  if (request_.body_reader) request_.body_reader->fail();
  if (client_gone && phase_ == Phase::waiting) status_ = 0;
}

std::vector<std::pair<std::string, std::string>> Exchange::take_log_fields() {
  core_detail::MutexLock lock(mu_);
  return std::move(fields_);
}

int Exchange::status() const {
  core_detail::MutexLock lock(mu_);
  return status_;
}

std::uint64_t Exchange::bytes() const {
  core_detail::MutexLock lock(mu_);
  return bytes_;
}

bool Exchange::streaming() const {
  core_detail::MutexLock lock(mu_);
  return phase_ == Phase::streaming;
}

}  // namespace forgemeter::serve
