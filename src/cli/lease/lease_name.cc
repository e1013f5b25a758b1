#include "cli/lease/lease_name.h"

#include <fmt/format.h>

#include "forgemeter/lane.h"

namespace forgemeter::cli {

// `lease run` names a lease as a service's elect() names it after its lane,
// so the two can share a lease; status and resign take only what run could hold.
CLI::Validator lease_name_rule() {
  return CLI::Validator(
      [](const std::string& name) -> std::string {
        const auto why = Lane::check(name);
        return why ? fmt::format("lease names follow the lane rule: {}", *why) : std::string();
      },
      "NAME");
}

}  // namespace forgemeter::cli
