// FlatMap: the ordered map of a report hour, as std::map would answer.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/fleet.h"

using forgemeter::report::FlatMap;
using forgemeter::report::LaneSums;

TEST_CASE("FlatMap holds what std::map holds, in the same order, whatever the order of insertion") {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    FlatMap<int, int> flat;
    std::map<int, int> tree;
    for (int i = 0; i < 40; ++i) {
      const int k = static_cast<int>(rng() % 25), v = static_cast<int>(rng() % 100);
      flat[k] += v;
      tree[k] += v;
      CHECK(flat.emplace(k, -1).second == false);  // there already: kept as it is
    }
    REQUIRE(flat.size() == tree.size());
    CHECK(std::equal(flat.begin(), flat.end(), tree.begin(),
                     [](const auto& a, const auto& b) { return a.first == b.first && a.second == b.second; }));
    for (int k = 0; k < 25; ++k) {
      CHECK(flat.count(k) == tree.count(k));
      if (tree.count(k))
        CHECK(flat.at(k) == tree.at(k));
      else
        CHECK_THROWS_AS(flat.at(k), std::out_of_range);
    }
  }
}

TEST_CASE("LaneSums: report order, `other` first") {
  LaneSums lanes;
  lanes["sweeper"] = 3;
  lanes["other"] = 1;
  lanes["board-sync"] = 2;
  std::string order;
  for (const auto& [lane, n] : lanes) order += lane + "=" + std::to_string(n) + " ";
  CHECK(order == "other=1 board-sync=2 sweeper=3 ");
  CHECK(lanes.find("nope") == lanes.end());
  CHECK(lanes.find("sweeper")->second == 3);
}

TEST_CASE("FlatMap::from_unsorted: the entries in any order, equal keys summed, as std::map holds them") {
  std::mt19937 rng(11);
  for (int round = 0; round < 50; ++round) {
    std::vector<std::pair<int, int>> items;
    std::map<int, int> tree;
    for (int i = 0; i < 60; ++i) {
      const int k = static_cast<int>(rng() % 25), v = static_cast<int>(rng() % 100);
      items.emplace_back(k, v);
      tree[k] += v;
    }
    const auto flat = FlatMap<int, int>::from_unsorted(items, [](int& to, int v) { to += v; });
    REQUIRE(flat.size() == tree.size());
    CHECK(std::equal(flat.begin(), flat.end(), tree.begin(),
                     [](const auto& a, const auto& b) { return a.first == b.first && a.second == b.second; }));
  }
  CHECK(FlatMap<int, int>::from_unsorted({}).empty());
}
