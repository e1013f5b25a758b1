// forgemeter/headers.h — the header fields of one answer, as received.
//
//   for (auto [name, value] : res.headers) note(name, value);  // in order received, names as sent
//   if (auto etag = res.headers.find("etag")) remember(*etag);  // first field of that name, any case
//
// A Headers owns one buffer holding the answer's header block byte for byte
// (status line, field lines, the closing blank line: raw()) and an index of
// its fields, so reading a header allocates nothing and keeping one costs one
// allocation, not two per field. A field is a line `name: value`; the name and
// the value are trimmed of spaces and tabs (the value also of CR and LF).
// Lines without a colon (the status line, the blank line, an obsolete folded
// continuation) are kept in raw() but are not fields. The Transport fills the
// Headers of each Response (forgemeter/transport.h).
//
// Ownership: the string_views handed out (Field, find(), raw()) point into
// the Headers' own buffer: they stay valid until the Headers is changed
// (clear, reserve, add_*), assigned to, moved from or destroyed. Copies are
// deep. Thread-safety: as for a std::string (const methods from many threads
// at once). Errors: find() and the accessors never throw; add_* and reserve
// throw std::bad_alloc, and std::length_error past 4 GiB.
#pragma once

#include "forgemeter/export.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <string_view>

namespace forgemeter {

class FORGEMETER_API Headers {
 public:
  struct Field {
    std::string_view name;
    std::string_view value;
  };
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Field;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Field;
    const_iterator() = default;
    Field operator*() const noexcept { return (*of_)[i_]; }
    const_iterator& operator++() noexcept {
      ++i_;
      return *this;
    }
    const_iterator operator++(int) noexcept {
      auto old = *this;
      ++i_;
      return old;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) noexcept { return a.i_ == b.i_; }

   private:
    friend class Headers;
    const_iterator(const Headers* of, std::size_t i) noexcept : of_(of), i_(i) {}
    const Headers* of_ = nullptr;
    std::size_t i_ = 0;
  };

  Headers() noexcept = default;
  Headers(const Headers& other);
  Headers(Headers&& other) noexcept;
  Headers& operator=(Headers other) noexcept;  // copies or moves, then swaps
  ~Headers();
  friend void swap(Headers& a, Headers& b) noexcept;

  std::size_t size() const noexcept { return fields_; }
  bool empty() const noexcept { return fields_ == 0; }
  // The i-th field in the order received; i < size().
  Field operator[](std::size_t i) const noexcept {
    const Span s = span(i);
    const char* value = block_ + s.value_at;  // trimmed here, when read
    const char* value_end = block_ + s.value_end;
    while (value < value_end && (*value == ' ' || *value == '\t')) ++value;
    while (value_end > value &&
           (value_end[-1] == ' ' || value_end[-1] == '\t' || value_end[-1] == '\r' || value_end[-1] == '\n'))
      --value_end;
    return {std::string_view(block_ + s.name_at, s.name_len),
            std::string_view(value, static_cast<std::size_t>(value_end - value))};
  }
  // operator[](i).name alone (the value is not trimmed for it).
  std::string_view name(std::size_t i) const noexcept {
    const Span s = span(i);
    return {block_ + s.name_at, s.name_len};
  }
  const_iterator begin() const noexcept { return {this, 0}; }
  const_iterator end() const noexcept { return {this, fields_}; }
  // The value of the first field named `name` (any case), or nullopt.
  std::optional<std::string_view> find(std::string_view name) const noexcept;
  // The header block as received.
  std::string_view raw() const noexcept { return {block_, used_}; }

  // Building one, a line at a time as they arrive (the Transport does this).
  void clear() noexcept { used_ = fields_ = 0; }  // keeps the capacity
  // Room for `bytes` of raw() and `fields` fields without a reallocation.
  void reserve(std::size_t bytes, std::size_t fields);
  // Appends `line` to raw() without indexing it (a status line, a blank line).
  void add_line(std::string_view line);
  // Appends `line` to raw() and indexes it when it is `name: value` with a
  // non-empty name; returns the new field's index, or npos when not a field.
  std::size_t add_field(std::string_view line);

 private:
  // One heap block of cap_ bytes: raw() from the front, the index of the
  // fields from the back (field i's Span ends i spans before the end).
  struct Span {
    std::uint32_t name_at, name_len;    // the name, trimmed
    std::uint32_t value_at, value_end;  // all after the colon, to its line's end
  };
  Span span(std::size_t i) const noexcept {
    Span s;
    std::memcpy(&s, block_ + cap_ - (i + 1) * sizeof(Span), sizeof(Span));
    return s;
  }
  std::size_t append(std::string_view line, std::size_t spans_after);  // returns where it starts
  void grow(std::size_t bytes, std::size_t fields);

  char* block_ = nullptr;
  std::size_t cap_ = 0;   // a multiple of sizeof(Span)
  std::size_t used_ = 0;  // bytes of raw()
  std::size_t fields_ = 0;
};

}  // namespace forgemeter
