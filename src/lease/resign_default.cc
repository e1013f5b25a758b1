// LeaseStore::resign()'s default (forgemeter/lease.h): a store written before
// resign requests takes none, and says so.
#include "forgemeter/lease.h"

namespace forgemeter {

LeaseResult LeaseStore::resign(std::string_view name, const Deadline&) {
  LeaseResult r;
  r.status = LeaseStatus::invalid;
  r.error = check_lease_name(name).value_or("this store takes no resign requests");
  return r;
}

}  // namespace forgemeter
