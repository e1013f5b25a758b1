#include "lease/postgres/statements.h"

#include <fmt/format.h>

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

// acquire: one upsert. The DO UPDATE has no WHERE: a refused attempt writes the
// row back unchanged, so RETURNING always reports the row as it stands under
// the lock (the latest committed version), and `granted` is simply "the owner
// is now the caller". G = free, expired at now, or the caller's.
// renew / release: lock the row (FOR UPDATE returns its latest version), change
// it only when the caller holds it, and answer from the locked version.
std::string prepare_sql(const std::string& t) {
  return fmt::format(
      "PREPARE {acq}(text, text, bigint, bigint) AS\n"
      "INSERT INTO {t} AS l (name, owner, expiry_ms, renewed_at_ms, term) VALUES ($1, $2, $4, $3, 1)\n"
      "ON CONFLICT (name) DO UPDATE SET\n"
      "  owner = CASE WHEN {G} THEN $2 ELSE l.owner END,\n"
      "  expiry_ms = CASE WHEN l.owner = $2 THEN greatest(l.expiry_ms, $4) WHEN {G} THEN $4 ELSE l.expiry_ms END,\n"
      "  renewed_at_ms = CASE WHEN l.owner = $2 THEN greatest(l.renewed_at_ms, $3) WHEN {G} THEN $3\n"
      "                       ELSE l.renewed_at_ms END,\n"
      "  term = CASE WHEN {G} AND l.owner IS DISTINCT FROM $2 THEN l.term + 1 ELSE l.term END\n"
      "RETURNING l.owner = $2, l.owner, l.expiry_ms, l.term;\n"
      "PREPARE {ren}(text, text, bigint, bigint) AS\n"
      "WITH cur AS (SELECT name, owner, expiry_ms, term FROM {t} WHERE name = $1 FOR UPDATE),\n"
      "upd AS (UPDATE {t} AS l SET expiry_ms = greatest(l.expiry_ms, $4),\n"
      "                            renewed_at_ms = greatest(l.renewed_at_ms, $3)\n"
      "        FROM cur WHERE l.name = cur.name AND cur.owner = $2 RETURNING l.owner, l.expiry_ms, l.term)\n"
      "SELECT true, owner, expiry_ms, term FROM upd\n"
      "UNION ALL SELECT false, owner, expiry_ms, term FROM cur WHERE NOT EXISTS (SELECT 1 FROM upd);\n"
      "PREPARE {rel}(text, text) AS\n"
      "WITH cur AS (SELECT name, owner, expiry_ms, term FROM {t} WHERE name = $1 FOR UPDATE),\n"
      "upd AS (UPDATE {t} AS l SET owner = NULL, expiry_ms = 0 FROM cur WHERE l.name = cur.name AND cur.owner = $2\n"
      "        RETURNING l.name)\n"
      "SELECT EXISTS (SELECT 1 FROM upd), owner, expiry_ms, term FROM cur;\n"
      "PREPARE {ins}(text) AS SELECT owner, expiry_ms, term FROM {t} WHERE name = $1;\n",
      fmt::arg("t", t), fmt::arg("acq", kAcquire), fmt::arg("ren", kRenew), fmt::arg("rel", kRelease),
      fmt::arg("ins", kInspect), fmt::arg("G", "(l.owner IS NULL OR l.owner = $2 OR l.expiry_ms <= $3)"));
}

}  // namespace forgemeter::pg
