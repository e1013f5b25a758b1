// flat_map.h — an ordered map kept as one sorted vector of (key, value) pairs,
// with the part of std::map's interface the report's hours are read through
// (find, at, count, operator[], emplace, ordered iteration).
//
// A report hour holds a handful of lanes, hosts and budgets, and a long log
// has thousands of hours: one allocation per map instead of one per entry
// (the 1 GB bench built 9,660 hours of ~80 tree nodes each, a fifth of the
// report's time going to malloc and to faulting the nodes' pages in).
// Insertion is linear in the map's size: fine for the few keys of an hour.
// A map of many keys (one meter line may name 100 000 hosts or lanes) is
// built at once from its entries in any order (from_unsorted(), n log n).
// Iterators and references are invalidated by any insertion, unlike std::map.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace forgemeter::report {

template <class K, class V, class Less = std::less<K>>
class FlatMap {
 public:
  using value_type = std::pair<K, V>;
  using const_iterator = typename std::vector<value_type>::const_iterator;
  using iterator = typename std::vector<value_type>::iterator;

  const_iterator begin() const noexcept { return items_.begin(); }
  const_iterator end() const noexcept { return items_.end(); }
  iterator begin() noexcept { return items_.begin(); }
  iterator end() noexcept { return items_.end(); }
  std::size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }

  const_iterator find(const K& key) const {
    auto it = lower(key);
    return it != items_.end() && !Less{}(key, it->first) ? it : items_.end();
  }
  std::size_t count(const K& key) const { return find(key) == end() ? 0 : 1; }
  const V& at(const K& key) const {
    auto it = find(key);
    if (it == end()) throw std::out_of_range("FlatMap::at: no such key");
    return it->second;
  }

  // The value at `key`, value-initialised on first use.
  V& operator[](const K& key) { return emplace(key, V{}).first->second; }
  // Inserts (key, value) unless `key` is there; the entry and whether it is new.
  std::pair<iterator, bool> emplace(K key, V value) {
    auto it = items_.begin() + (lower(key) - items_.cbegin());
    if (it != items_.end() && !Less{}(key, it->first)) return {it, false};
    return {items_.emplace(it, std::move(key), std::move(value)), true};
  }

  // The map of `items` in any order, in n log n (insertion one by one is
  // n^2). Entries with equal keys are folded into one by fold(V& kept,
  // V&& other), in no set order: a sum. Without a fold the keys are distinct.
  template <class Fold>
  static FlatMap from_unsorted(std::vector<value_type> items, Fold fold) {
    std::sort(items.begin(), items.end(),
              [](const value_type& a, const value_type& b) { return Less{}(a.first, b.first); });
    std::size_t kept = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (kept > 0 && !Less{}(items[kept - 1].first, items[i].first)) {
        fold(items[kept - 1].second, std::move(items[i].second));
      } else {
        if (kept != i) items[kept] = std::move(items[i]);
        ++kept;
      }
    }
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(kept), items.end());
    FlatMap map;
    map.items_ = std::move(items);
    return map;
  }
  static FlatMap from_unsorted(std::vector<value_type> items) {
    return from_unsorted(std::move(items), [](V&, V&&) {});
  }

  friend bool operator==(const FlatMap&, const FlatMap&) = default;

 private:
  const_iterator lower(const K& key) const {
    return std::lower_bound(items_.begin(), items_.end(), key,
                            [](const value_type& item, const K& k) { return Less{}(item.first, k); });
  }

  std::vector<value_type> items_;
};

}  // namespace forgemeter::report
