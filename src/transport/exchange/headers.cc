// Headers: one answer's header block and the index of its fields, in one heap
// block (bytes from the front, Spans from the back).
#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <utility>

#include "core/ascii.h"
#include "forgemeter/headers.h"

namespace forgemeter {

namespace {

bool is_blank(char c) noexcept { return c == ' ' || c == '\t'; }

constexpr std::size_t kMaxBlock = std::numeric_limits<std::uint32_t>::max();  // Span offsets are 32-bit
constexpr std::size_t kMinBlock = 256;

std::size_t round_up(std::size_t n, std::size_t to) noexcept { return (n + to - 1) / to * to; }

}  // namespace

Headers::Headers(const Headers& other) : used_(other.used_), fields_(other.fields_) {
  if (!other.block_) return;
  cap_ = round_up(used_, sizeof(Span)) + fields_ * sizeof(Span);
  if (cap_ == 0) return;
  block_ = new char[cap_];
  std::memcpy(block_, other.block_, used_);
  std::memcpy(block_ + cap_ - fields_ * sizeof(Span), other.block_ + other.cap_ - fields_ * sizeof(Span),
              fields_ * sizeof(Span));
}

Headers::Headers(Headers&& other) noexcept
    : block_(std::exchange(other.block_, nullptr)),
      cap_(std::exchange(other.cap_, 0)),
      used_(std::exchange(other.used_, 0)),
      fields_(std::exchange(other.fields_, 0)) {}

Headers& Headers::operator=(Headers other) noexcept {
  swap(*this, other);
  return *this;
}

Headers::~Headers() { delete[] block_; }

void swap(Headers& a, Headers& b) noexcept {
  std::swap(a.block_, b.block_);
  std::swap(a.cap_, b.cap_);
  std::swap(a.used_, b.used_);
  std::swap(a.fields_, b.fields_);
}

std::optional<std::string_view> Headers::find(std::string_view name) const noexcept {
  for (std::size_t i = 0; i < fields_; ++i) {
    const std::string_view n = this->name(i);
    if (core_detail::iequals(n, name)) return (*this)[i].value;
  }
  return std::nullopt;
}

// A block with room for `bytes` of raw() and `fields` Spans (at least).
void Headers::grow(std::size_t bytes, std::size_t fields) {
  if (bytes > kMaxBlock || fields > kMaxBlock / sizeof(Span) ||
      round_up(bytes, sizeof(Span)) > kMaxBlock - fields * sizeof(Span))
    throw std::length_error("Headers: a header block over 4 GiB");
  const std::size_t need = round_up(bytes, sizeof(Span)) + fields * sizeof(Span);
  if (need <= cap_) return;
  const std::size_t cap = std::min(kMaxBlock / sizeof(Span) * sizeof(Span), std::max({need, 2 * cap_, kMinBlock}));
  char* block = new char[cap];
  if (block_) {
    std::memcpy(block, block_, used_);
    std::memcpy(block + cap - fields_ * sizeof(Span), block_ + cap_ - fields_ * sizeof(Span), fields_ * sizeof(Span));
    delete[] block_;
  }
  block_ = block;
  cap_ = cap;
}

void Headers::reserve(std::size_t bytes, std::size_t fields) {
  grow(std::max(bytes, used_), std::max(fields, fields_));
}

std::size_t Headers::append(std::string_view line, std::size_t spans_after) {
  const std::size_t at = used_;
  if (used_ + line.size() + (fields_ + spans_after) * sizeof(Span) > cap_)
    grow(used_ + line.size(), fields_ + spans_after);
  if (!line.empty()) std::memcpy(block_ + at, line.data(), line.size());
  used_ += line.size();
  return at;
}

void Headers::add_line(std::string_view line) { (void)append(line, 0); }

std::size_t Headers::add_field(std::string_view line) {
  if (line.empty()) return npos;
  if (used_ + line.size() + (fields_ + 1) * sizeof(Span) > cap_)  // room for its Span, too
    grow(used_ + line.size(), fields_ + 1);
  char* const begin = block_ + used_;
  char* const end = begin + line.size();
  std::memcpy(begin, line.data(), line.size());
  used_ += line.size();
  const auto* colon = static_cast<const char*>(std::memchr(begin, ':', line.size()));
  if (!colon) return npos;
  const char* name = begin;
  while (name < colon && is_blank(*name)) ++name;
  const char* name_end = colon;
  while (name_end > name && is_blank(name_end[-1])) --name_end;
  if (name == name_end) return npos;
  auto offset = [&](const char* p) { return static_cast<std::uint32_t>(p - block_); };
  const Span s{offset(name), static_cast<std::uint32_t>(name_end - name), offset(colon + 1), offset(end)};
  std::memcpy(block_ + cap_ - (fields_ + 1) * sizeof(Span), &s, sizeof s);
  return fields_++;
}

}  // namespace forgemeter
