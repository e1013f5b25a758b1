// The Fleet's packed keys: each unpacks to what was packed, at the widest
// values its fields hold, and no field spills into another.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include "report/fleet_keys.h"

using namespace forgemeter::report;
using forgemeter::Api;

TEST_CASE("a name id and an API unpack as packed") {
  for (std::uint64_t name : {std::uint64_t{0}, std::uint64_t{1}, (std::uint64_t{1} << 62) - 1})
    for (Api api : {Api::rest, Api::graphql}) {
      const NameApi k = unpack_name_api(pack_name_api(name, api));
      CHECK(k.name == name);
      CHECK(k.api == api);
    }
}

TEST_CASE("a source and a lane unpack as packed, the lane's API in its low bit") {
  constexpr std::uint32_t kMaxSource = std::numeric_limits<std::uint32_t>::max();
  constexpr std::uint64_t kMaxLane = (std::uint64_t{1} << 31) - 1;
  for (std::uint32_t source : {std::uint32_t{0}, std::uint32_t{7}, kMaxSource})
    for (std::uint64_t lane : {std::uint64_t{0}, std::uint64_t{5}, kMaxLane})
      for (Api api : {Api::rest, Api::graphql}) {
        const SourceLane k = unpack_source_lane(pack_source_lane(source, pack_name_api(lane, api)));
        CHECK(k.source == source);
        const NameApi l = unpack_name_api(k.lane_api);
        CHECK(l.name == lane);
        CHECK(l.api == api);
      }
}

TEST_CASE("a budget packs only when both fields fit, and then unpacks as packed with the top bit clear") {
  constexpr std::uint64_t kHostApiMax = (std::uint64_t{1} << kBudgetHostApiBits) - 1;
  constexpr std::uint64_t kInstallationMax = (std::uint64_t{1} << kInstallationBits) - 1;
  CHECK(budget_fits(kHostApiMax, kInstallationMax));
  CHECK_FALSE(budget_fits(kHostApiMax + 1, 0));
  CHECK_FALSE(budget_fits(0, kInstallationMax + 1));
  for (std::uint64_t host_api : {std::uint64_t{0}, std::uint64_t{3}, kHostApiMax})
    for (std::uint64_t installation : {std::uint64_t{0}, std::uint64_t{101}, kInstallationMax}) {
      const std::uint64_t key = pack_budget(host_api, installation);
      CHECK((key >> 63) == 0);
      const HostInstallation k = unpack_budget(key);
      CHECK(k.host_api == host_api);
      CHECK(k.installation == installation);
    }
}
