#include "transport/body_feed.h"

#include <curl/curl.h>

#include <algorithm>
#include <exception>
#include <span>

#include "core/terminal_text.h"

namespace forgemeter::transport_detail {

void BodyFeed::begin(const BodySource* source, std::optional<std::uint64_t> length) noexcept {
  source_ = source;
  length_ = length;
  sent_ = 0;
  failed_ = false;
  failure_.clear();
}

std::size_t BodyFeed::fail(const char* what, const char* detail) noexcept {
  failed_ = true;
  try {
    failure_ = "the body source (Request::body_source) ";
    failure_ += what;
    if (detail != nullptr) failure_ += core_detail::terminal_text(detail);
    failure_ += " after " + std::to_string(sent_) + " bytes: upload ended";
  } catch (...) {
    // out of memory: the code says it
  }
  return CURL_READFUNC_ABORT;
}

std::size_t BodyFeed::take(char* to, std::size_t room) noexcept {
  if (source_ == nullptr || !*source_) return 0;
  if (length_) room = static_cast<std::size_t>(std::min<std::uint64_t>(room, *length_ - sent_));
  if (room == 0) return 0;  // the whole length is sent: the source is not asked past it
  std::optional<std::size_t> got;
  try {
    got = (*source_)(std::span<char>(to, room));
  } catch (const std::exception& e) {
    return fail("threw: ", e.what());
  } catch (...) {
    return fail("threw");
  }
  if (!got) return fail("failed");
  if (*got > room) return fail("said it wrote more than the buffer holds");
  if (*got == 0 && length_) return fail("ended short of body_length");
  sent_ += *got;
  return *got;
}

std::size_t BodyFeed::read(char* to, std::size_t size, std::size_t n, void* feed) noexcept {
  return static_cast<BodyFeed*>(feed)->take(to, size * n);
}

}  // namespace forgemeter::transport_detail
