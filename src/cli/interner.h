// interner.h — small dense ids for the names a report meets again and again.
//
// Hosts, lanes and sources repeat on every meter line; the fleet keeps each
// name once and works with its id (0, 1, 2, … in order of first use).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace forgemeter::cli {

class Interner {
 public:
  std::uint32_t id(std::string_view name) {
    if (auto it = ids_.find(name); it != ids_.end()) return it->second;
    auto id = static_cast<std::uint32_t>(names_.size());
    names_.emplace_back(name);
    ids_.emplace(std::string(name), id);
    return id;
  }
  const std::string& name(std::uint32_t id) const { return names_[id]; }
  const std::vector<std::string>& names() const { return names_; }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> ids_;
};

}  // namespace forgemeter::cli
