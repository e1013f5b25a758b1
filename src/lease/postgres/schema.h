// Internal: the two tables of the PostgreSQL lease store, their names and DDL.
//
//   <table>        UNLOGGED, one live row per lease name: owner (NULL: nobody),
//                  expiry_ms, renewed_at_ms, term, resign_term (the term
//                  whose holder was asked to step down). Short-lived state.
//   <table>_terms  logged, one row per lease name ever taken: the last term
//                  granted and the largest TTL ever granted (ttl_ms). Written
//                  only on a change of hands or a grant with a larger TTL.
//
// The configured name is the only text put into SQL: validated as an
// identifier (optionally schema-qualified) and double-quoted.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace forgemeter::pg {

inline constexpr std::string_view kTermsSuffix = "_terms";

// The conflict clause of every write to the terms table (aliased `r`): its
// values only ever rise, so a write from a stale read is harmless.
inline constexpr const char* kRaiseRecord =
    "ON CONFLICT (name) DO UPDATE SET term = greatest(r.term, excluded.term), "
    "ttl_ms = greatest(r.ttl_ms, excluded.ttl_ms)";

// Why `table` is not a usable table name, or nullopt when it is. The table
// part leaves room for kTermsSuffix within PostgreSQL's 63-byte identifiers.
std::optional<std::string> check_table_name(std::string_view table);

// Both tables' names, quoted for SQL ("schema"."name").
struct Tables {
  std::string live;
  std::string terms;
};

// Precondition: check_table_name(table) accepts it.
Tables quoted_tables(std::string_view table);

// CREATE ... IF NOT EXISTS for both tables (and the live table's resign_term
// column added to a table created before it).
std::string create_tables_sql(const Tables& t);
// Adds the live table's resign_term column when it is absent; no lock when present.
std::string add_resign_column_sql(const Tables& t);

// The same, as one implicit transaction that first takes an advisory lock
// keyed on the table name: sessions creating the tables at once queue, and the
// later ones find them committed (a bare IF NOT EXISTS race fails on pg_type).
std::string create_tables_serialised_sql(const Tables& t);

// The migration from the one-logged-table layout: one transaction that creates
// the terms table, records every live row's term and TTL in it, and makes the
// live table UNLOGGED.
std::string migrate_from_logged_sql(const Tables& t);

}  // namespace forgemeter::pg
