// Internal: the SQL of the PostgreSQL lease store's four calls.
//
// Everything but the (validated, quoted) table names is a parameter of a
// prepared statement. The tables are described in lease/postgres/schema.h.
#pragma once

#include <string>

#include "lease/postgres/schema.h"

namespace forgemeter::pg {

// One simple query that prepares every statement below on a connection (and
// raises the session's synchronous_commit from `off` to `on`, so a granted
// change of hands is on disk before it is reported).
std::string prepare_sql(const Tables& t);

// Prepared statement names and their parameters (all text-format):
//   acquire(name, owner, now_ms, expiry_ms) -> granted, owner, expiry_ms, term   (always one row)
//   renew(name, owner, now_ms, expiry_ms)   -> granted, owner, expiry_ms, term   (no row: no lease)
//   release(name, owner)                    -> released, owner, expiry_ms, term  (no row: no lease)
//   inspect(name)                           -> owner, expiry_ms, term            (always one row)
inline constexpr const char* kAcquire = "forgemeter_acquire";
inline constexpr const char* kRenew = "forgemeter_renew";
inline constexpr const char* kRelease = "forgemeter_release";
inline constexpr const char* kInspect = "forgemeter_inspect";

}  // namespace forgemeter::pg
