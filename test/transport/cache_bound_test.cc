// The cache's bounds against a loopback HTTP server: a sweep of 100 000
// distinct URLs through 16 MiB, and the entry bound. Single-threaded, so out
// of the TSan run (test/transport/CMakeLists.txt): a sanitizer finds nothing
// here and would take minutes.
#include <doctest/doctest.h>

#include <algorithm>

#include "cache_rig.h"

using namespace fmtest;

TEST_CASE("100 000 distinct URLs with a 16 MiB bound: the cache stays within it") {
  const forgemeter::CacheOptions bound{.max_bytes = 16u << 20, .max_entries = 1'000'000, .max_entry_bytes = 1u << 20};
  CacheRig rig(bound);
  rig.server().set_default({.body = std::string(800, 'd'), .etag = "auto"});
  std::size_t most = 0, over = 0;
  for (int i = 0; i < 100'000; ++i) {
    auto r = rig.get("/sweep/" + std::to_string(i));
    over += r.status != 200;
    const auto s = rig.transport().cache_figures();
    most = std::max(most, s.bytes);
  }
  const auto s = rig.transport().cache_figures();
  CHECK(over == 0);
  CHECK(most <= bound.max_bytes);
  CHECK(s.bytes > bound.max_bytes - 8192);  // full, not emptied
  CHECK(s.entries < 100'000);
  // The most recent are kept: the last URL is revalidated, the first is not.
  CHECK(rig.get("/sweep/99999").revalidated);
  CHECK_FALSE(rig.get("/sweep/0").revalidated);
}

TEST_CASE("the entry bound holds too") {
  CacheRig rig({.max_bytes = 64u << 20, .max_entries = 10, .max_entry_bytes = 1u << 20});
  rig.server().set_default({.body = "d", .etag = "auto"});
  for (int i = 0; i < 25; ++i) rig.get("/e/" + std::to_string(i));
  CHECK(rig.transport().cache_figures().entries == 10);
  CHECK(rig.get("/e/24").revalidated);
  CHECK_FALSE(rig.get("/e/0").revalidated);
}
