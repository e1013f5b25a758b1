// Internal: the SQL of the PostgreSQL lease store's four calls.
//
// Everything but the (validated, quoted) table names is a parameter of a
// prepared statement. The tables are described in lease/postgres/schema.h.
#pragma once

#include <string>
#include <string_view>

#include "lease/postgres/schema.h"

namespace forgemeter::pg {

// One simple query that prepares every statement below on a connection (and
// raises the session's synchronous_commit from `off` to `on`, so a granted
// change of hands is on disk before it is reported). A release, and an
// acquire that changes hands, send NOTIFY on `channel` with the lease's name,
// in the same statement (delivered at its commit); a renewal never does.
std::string prepare_sql(const Tables& t, std::string_view channel);

// Prepared statement names and their parameters (all text-format):
//   acquire(name, owner, now_ms, expiry_ms) -> granted, owner, expiry_ms, term   (always one row)
//   renew(name, owner, now_ms, expiry_ms)   -> granted, owner, expiry_ms, term, resign, server_ms (no row: no lease)
//   release(name, owner)                    -> released, owner, expiry_ms, term  (no row: no lease)
//   inspect(name)                           -> owner, expiry_ms, term            (always one row)
//   resign(name)                            -> asked, owner, expiry_ms, term     (always one row)
inline constexpr const char* kAcquire = "forgemeter_acquire";
inline constexpr const char* kRenew = "forgemeter_renew";
inline constexpr const char* kRelease = "forgemeter_release";
inline constexpr const char* kInspect = "forgemeter_inspect";
inline constexpr const char* kResign = "forgemeter_resign";
// Cheaper statements that answer as the ones above do, when what the store
// has already proven (lease/postgres/proven.h) allows:
//   renew_covered(name, owner, now_ms, expiry_ms) -> as renew; only when the
//       terms record covers expiry_ms - now_ms
//   probe_held(name, owner, now_ms) -> false, owner, expiry_ms, term when
//       someone else holds it unexpired at now_ms (acquire's refusal); else no row
//   release_held(name, owner) -> term when it released the caller's lease; else no row
inline constexpr const char* kRenewCovered = "forgemeter_renew_covered";
inline constexpr const char* kProbeHeld = "forgemeter_probe_held";
inline constexpr const char* kReleaseHeld = "forgemeter_release_held";

}  // namespace forgemeter::pg
