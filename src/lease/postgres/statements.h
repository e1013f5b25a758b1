// Internal: the SQL of the PostgreSQL lease store.
//
// The table name is the only text put into SQL: validated as an identifier
// (optionally schema-qualified) and double-quoted. Everything else is a
// parameter of a prepared statement.
#pragma once

#include <string>
#include <string_view>

namespace forgemeter::pg {

// Why `table` is not a usable table name, or empty when it is.
std::string table_name_error(std::string_view table);

// `table` quoted for SQL ("schema"."name"). Precondition: table_name_error() is empty.
std::string quoted_table(std::string_view table);

// CREATE TABLE IF NOT EXISTS for the (quoted) table.
std::string create_table_sql(const std::string& quoted);

// The same, as one implicit transaction that first takes an advisory lock
// keyed on the table name: sessions creating the table at once queue, and the
// later ones find it committed (a bare IF NOT EXISTS race fails on pg_type).
std::string create_table_serialised_sql(const std::string& quoted);

// One simple query that prepares every statement below on a connection.
std::string prepare_sql(const std::string& quoted);

// Prepared statement names and their parameters (all text-format):
//   acquire(name, owner, now_ms, expiry_ms) -> granted, owner, expiry_ms, term   (always one row)
//   renew(name, owner, now_ms, expiry_ms)   -> granted, owner, expiry_ms, term   (no row: no lease)
//   release(name, owner)                    -> released, owner, expiry_ms, term  (no row: no lease)
//   inspect(name)                           -> owner, expiry_ms, term            (no row: no lease)
inline constexpr const char* kAcquire = "forgemeter_acquire";
inline constexpr const char* kRenew = "forgemeter_renew";
inline constexpr const char* kRelease = "forgemeter_release";
inline constexpr const char* kInspect = "forgemeter_inspect";

}  // namespace forgemeter::pg
