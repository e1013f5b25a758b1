// interner.h — small dense ids for the names a report meets again and again.
//
// Hosts, lanes and sources repeat on every meter line; the fleet keeps each
// name once and works with its id (0, 1, 2, … in order of first use). A
// small direct-mapped cache in front of the hash table answers the names of
// the last few lines with one comparison.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace forgemeter::report {

class Interner {
 public:
  std::uint32_t id(std::string_view name) {
    std::uint32_t& cached = cache_[slot(name)];
    if (cached < names_.size() && names_[cached] == name) return cached;
    if (auto it = ids_.find(name); it != ids_.end()) return cached = it->second;
    auto id = static_cast<std::uint32_t>(names_.size());
    names_.emplace_back(name);
    ids_.emplace(std::string(name), id);
    return cached = id;
  }
  const std::string& name(std::uint32_t id) const { return names_[id]; }
  const std::vector<std::string>& names() const { return names_; }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  static std::size_t slot(std::string_view s) noexcept {
    if (s.empty()) return 0;
    return (s.size() * 7 + static_cast<unsigned char>(s.back()) + static_cast<unsigned char>(s[s.size() / 2])) % kCache;
  }
  static constexpr std::size_t kCache = 16;
  std::array<std::uint32_t, kCache> cache_ = [] {
    std::array<std::uint32_t, kCache> a{};
    a.fill(UINT32_MAX);
    return a;
  }();
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> ids_;
};

}  // namespace forgemeter::report
