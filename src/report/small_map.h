// small_map.h — a map for the handful of keys one report hour holds.
//
// An hour of a fleet report has a few lanes, hosts and installations, so its
// sums live in a flat vector searched linearly, which beats any tree or hash
// at that size. A hour that collects many keys (an app with thousands of
// installations) gets a hash index once it passes kLinear keys, so no input
// makes a lookup cost more than a hash probe. Items keep insertion order.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace forgemeter::report {

// Keys are small ids packed into a uint64.
template <class V>
class SmallMap {
 public:
  static constexpr std::size_t kLinear = 16;

  // The value at `key`, value-initialised on first use.
  V& operator[](std::uint64_t key) {
    if (!index_) {
      for (auto& kv : items_)
        if (kv.first == key) return kv.second;
      items_.emplace_back(key, V{});
      if (items_.size() > kLinear) build_index();
      return items_.back().second;
    }
    auto [it, fresh] = index_->try_emplace(key, items_.size());
    if (fresh) items_.emplace_back(key, V{});
    return items_[it->second].second;
  }

  const std::vector<std::pair<std::uint64_t, V>>& items() const { return items_; }

 private:
  void build_index() {
    index_ = std::make_unique<std::unordered_map<std::uint64_t, std::size_t>>();
    for (std::size_t i = 0; i < items_.size(); ++i) index_->emplace(items_[i].first, i);
  }

  std::vector<std::pair<std::uint64_t, V>> items_;
  std::unique_ptr<std::unordered_map<std::uint64_t, std::size_t>> index_;
};

}  // namespace forgemeter::report
