#include "lease/postgres/statements.h"

#include <fmt/format.h>

#include <cstdint>

namespace forgemeter::pg {
namespace {

constexpr std::size_t kMaxIdentifier = 63;  // NAMEDATALEN - 1

bool identifier_char(char c, bool first) {
  bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  return alpha || (!first && c >= '0' && c <= '9');
}

std::string part_error(std::string_view part) {
  if (part.empty()) return "is empty";
  if (part.size() > kMaxIdentifier) return fmt::format("is longer than {} bytes", kMaxIdentifier);
  for (std::size_t i = 0; i < part.size(); ++i) {
    if (!identifier_char(part[i], i == 0)) return "must match [A-Za-z_][A-Za-z0-9_]*";
  }
  return {};
}

}  // namespace

std::string table_name_error(std::string_view table) {
  auto dot = table.find('.');
  std::string why = part_error(table.substr(0, dot));
  if (why.empty() && dot != std::string_view::npos) why = part_error(table.substr(dot + 1));
  if (why.empty()) return {};
  return fmt::format("table name \"{}\" {} (optionally schema.table)", table.substr(0, 80), why);
}

std::string quoted_table(std::string_view table) {
  auto dot = table.find('.');
  if (dot == std::string_view::npos) return fmt::format("\"{}\"", table);
  return fmt::format("\"{}\".\"{}\"", table.substr(0, dot), table.substr(dot + 1));
}

std::string create_table_sql(const std::string& t) {
  return fmt::format(
      "CREATE TABLE IF NOT EXISTS {} (\n"
      "  name text PRIMARY KEY,\n"
      "  owner text,                   -- NULL: free\n"
      "  expiry_ms bigint NOT NULL,    -- epoch ms, the caller's clock\n"
      "  renewed_at_ms bigint NOT NULL,\n"
      "  term bigint NOT NULL\n"
      ")",
      t);
}

std::string create_table_serialised_sql(const std::string& t) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a of the quoted name: the lock key
  for (unsigned char c : t) h = (h ^ c) * 1099511628211ull;
  return fmt::format("SELECT pg_advisory_xact_lock({}); {}", static_cast<std::int64_t>(h), create_table_sql(t));
}

// Every statement is linearizable at one instant of its execution:
//
// acquire: first a plain read (the statement's snapshot). When that shows
// another owner's unexpired lease, refuse from it: the answer is true at the
// snapshot's instant, and nothing is written or locked (a candidate's polling
// costs the holder nothing). Otherwise the upsert, whose DO UPDATE has no
// WHERE: it locks the latest committed version of the row and decides on it
// (G = free, expired at now, or the caller's); a refusal there writes the row
// back unchanged, so RETURNING always reports the row as it stands under the
// lock, and `granted` is simply "the owner is now the caller".
//
// renew: one UPDATE of the row, whose SET changes it only when the caller
// holds it; like the upsert it locks the latest version and decides on it
// (READ COMMITTED re-reads it after any wait), and a refusal writes the row
// back unchanged so RETURNING reports the holder as it stands. It never
// inserts: no row, no lease, no answer row.
//
// release: one UPDATE conditioned on the owner (re-checked on the latest
// version); only when it matched nothing, the row is read FOR UPDATE (its
// latest version) to report who holds it — so release tells "free"
// (not_held) from "another's" (lost) on the locked row, never on a stale
// snapshot.
std::string prepare_sql(const std::string& t) {
  // Generic plans from the first execution: every statement is a primary-key
  // lookup whatever the parameters, and re-planning would cost more than it runs.
  return fmt::format(
      "SET plan_cache_mode = force_generic_plan;\n"
      "PREPARE {acq}(text, text, bigint, bigint) AS\n"
      "WITH cur AS (SELECT owner, expiry_ms, term FROM {t} WHERE name = $1),\n"
      "up AS (INSERT INTO {t} AS l (name, owner, expiry_ms, renewed_at_ms, term)\n"
      "       SELECT $1, $2, $4, $3, 1 WHERE NOT EXISTS (SELECT 1 FROM cur WHERE owner <> $2 AND expiry_ms > $3)\n"
      "       ON CONFLICT (name) DO UPDATE SET\n"
      "         owner = CASE WHEN {G} THEN $2 ELSE l.owner END,\n"
      "         expiry_ms = CASE WHEN l.owner = $2 THEN greatest(l.expiry_ms, $4) WHEN {G} THEN $4\n"
      "                          ELSE l.expiry_ms END,\n"
      "         renewed_at_ms = CASE WHEN l.owner = $2 THEN greatest(l.renewed_at_ms, $3) WHEN {G} THEN $3\n"
      "                              ELSE l.renewed_at_ms END,\n"
      "         term = CASE WHEN {G} AND l.owner IS DISTINCT FROM $2 THEN l.term + 1 ELSE l.term END\n"
      "       RETURNING l.owner = $2, l.owner, l.expiry_ms, l.term)\n"
      "SELECT * FROM up UNION ALL SELECT false, owner, expiry_ms, term FROM cur WHERE NOT EXISTS (SELECT 1 FROM up);\n"
      "PREPARE {ren}(text, text, bigint, bigint) AS\n"
      "UPDATE {t} AS l SET\n"
      "  expiry_ms = CASE WHEN l.owner = $2 THEN greatest(l.expiry_ms, $4) ELSE l.expiry_ms END,\n"
      "  renewed_at_ms = CASE WHEN l.owner = $2 THEN greatest(l.renewed_at_ms, $3) ELSE l.renewed_at_ms END\n"
      "WHERE l.name = $1 RETURNING coalesce(l.owner = $2, false), l.owner, l.expiry_ms, l.term;\n"
      "PREPARE {rel}(text, text) AS\n"
      "WITH upd AS (UPDATE {t} AS l SET owner = NULL, expiry_ms = 0\n"
      "             WHERE l.name = $1 AND l.owner = $2 RETURNING l.term),\n"
      "held AS (SELECT owner, expiry_ms, term FROM {t} WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM upd) FOR UPDATE)\n"
      "SELECT true, NULL::text, 0::bigint, term FROM upd UNION ALL SELECT false, owner, expiry_ms, term FROM held;\n"
      "PREPARE {ins}(text) AS SELECT owner, expiry_ms, term FROM {t} WHERE name = $1;\n",
      fmt::arg("t", t), fmt::arg("acq", kAcquire), fmt::arg("ren", kRenew), fmt::arg("rel", kRelease),
      fmt::arg("ins", kInspect), fmt::arg("G", "(l.owner IS NULL OR l.owner = $2 OR l.expiry_ms <= $3)"));
}

}  // namespace forgemeter::pg
