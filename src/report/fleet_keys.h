// fleet_keys.h — the integers a Fleet keys an hour's sums by, each packed
// from interned ids (interner.h) and unpacked by the pair of functions beside
// its packing; the widths are checked at compile time.
//
//   name/api      name id << 1 | api                      a host's or a lane's id and its API
//   source/lane   source id << 32 | lane name/api         an hour's requests (lane ids < 2^31)
//   budget        host name/api << 44 | installation      when both fit (host ids < 2^18,
//                                                         installations < 2^44; bit 63 clear)
#pragma once

#include <cstdint>

#include "forgemeter/url.h"

namespace forgemeter::report {

// --- a name id and an API ---

inline constexpr unsigned kApiBits = 1;
static_assert(static_cast<unsigned>(Api::rest) == 0 && static_cast<unsigned>(Api::graphql) == 1, "an API is one bit");

struct NameApi {
  std::uint64_t name = 0;
  Api api = Api::rest;
};
constexpr std::uint64_t pack_name_api(std::uint64_t name, Api api) {
  return name << kApiBits | static_cast<unsigned>(api);
}
constexpr NameApi unpack_name_api(std::uint64_t key) { return {key >> kApiBits, Api(key & 1)}; }

// --- a source and a lane's name/api ---

inline constexpr unsigned kSourceBits = 32, kLaneApiBits = 32;
static_assert(kSourceBits + kLaneApiBits == 64);

struct SourceLane {
  std::uint32_t source = 0;
  std::uint64_t lane_api = 0;  // pack_name_api() of the lane
};
constexpr std::uint64_t pack_source_lane(std::uint32_t source, std::uint64_t lane_api) {
  return std::uint64_t{source} << kLaneApiBits | lane_api;
}
constexpr SourceLane unpack_source_lane(std::uint64_t key) {
  return {static_cast<std::uint32_t>(key >> kLaneApiBits), key & ((std::uint64_t{1} << kLaneApiBits) - 1)};
}

// --- a host's name/api and an installation: a budget ---

inline constexpr unsigned kBudgetHostApiBits = 19, kInstallationBits = 44;
// The top bit is left clear: Fleet marks there the ids of pairs that do not fit.
static_assert(kBudgetHostApiBits + kInstallationBits == 63);

struct HostInstallation {
  std::uint64_t host_api = 0;  // pack_name_api() of the host
  std::uint64_t installation = 0;
};
constexpr bool budget_fits(std::uint64_t host_api, std::uint64_t installation) {
  return host_api < (std::uint64_t{1} << kBudgetHostApiBits) && installation < (std::uint64_t{1} << kInstallationBits);
}
// Only when budget_fits().
constexpr std::uint64_t pack_budget(std::uint64_t host_api, std::uint64_t installation) {
  return host_api << kInstallationBits | installation;
}
constexpr HostInstallation unpack_budget(std::uint64_t key) {
  return {key >> kInstallationBits, key & ((std::uint64_t{1} << kInstallationBits) - 1)};
}

}  // namespace forgemeter::report
