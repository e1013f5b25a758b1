// Headers: one answer's header block in one buffer, with an index of its fields.
#include <strings.h>

#include <cstring>
#include <limits>
#include <stdexcept>

#include "forgemeter/transport.h"

namespace forgemeter {

namespace {

bool is_blank(char c) noexcept { return c == ' ' || c == '\t'; }

}  // namespace

std::optional<std::string_view> Headers::find(std::string_view name) const noexcept {
  for (const Span& s : index_)
    if (s.name_len == name.size() && strncasecmp(bytes_.data() + s.name_at, name.data(), name.size()) == 0)
      return std::string_view(bytes_.data() + s.value_at, s.value_len);
  return std::nullopt;
}

void Headers::clear() noexcept {
  bytes_.clear();
  index_.clear();
}

void Headers::reserve(std::size_t bytes, std::size_t fields) {
  bytes_.reserve(bytes);
  index_.reserve(fields);
}

std::size_t Headers::append(std::string_view line) {
  const std::size_t at = bytes_.size();
  if (line.size() > std::numeric_limits<std::uint32_t>::max() - at)
    throw std::length_error("Headers: a header block over 4 GiB");
  bytes_.append(line);
  return at;
}

void Headers::add_line(std::string_view line) { (void)append(line); }

std::size_t Headers::add_field(std::string_view line) {
  const auto* colon = static_cast<const char*>(std::memchr(line.data(), ':', line.size()));
  const std::size_t at = append(line);
  if (!colon) return npos;
  const auto colon_at = static_cast<std::size_t>(colon - line.data());
  std::size_t name_begin = 0, name_end = colon_at;
  while (name_begin < name_end && is_blank(line[name_begin])) ++name_begin;
  while (name_end > name_begin && is_blank(line[name_end - 1])) --name_end;
  if (name_begin == name_end) return npos;
  std::size_t value_begin = colon_at + 1, value_end = line.size();
  while (value_begin < value_end && is_blank(line[value_begin])) ++value_begin;
  while (value_end > value_begin &&
         (is_blank(line[value_end - 1]) || line[value_end - 1] == '\r' || line[value_end - 1] == '\n'))
    --value_end;
  index_.push_back(Span{static_cast<std::uint32_t>(at + name_begin), static_cast<std::uint32_t>(name_end - name_begin),
                        static_cast<std::uint32_t>(at + value_begin),
                        static_cast<std::uint32_t>(value_end - value_begin)});
  return index_.size() - 1;
}

}  // namespace forgemeter
