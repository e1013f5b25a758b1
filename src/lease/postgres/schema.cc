#include "lease/postgres/schema.h"

#include <fmt/format.h>

#include <cstdint>

namespace forgemeter::pg {
namespace {

constexpr std::size_t kMaxIdentifier = 63;  // NAMEDATALEN - 1

bool identifier_char(char c, bool first) {
  bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  return alpha || (!first && c >= '0' && c <= '9');
}

std::optional<std::string> check_part(std::string_view part, std::size_t max) {
  if (part.empty()) return "is empty";
  if (part.size() > max) return fmt::format("is longer than {} bytes", max);
  for (std::size_t i = 0; i < part.size(); ++i) {
    if (!identifier_char(part[i], i == 0)) return "must match [A-Za-z_][A-Za-z0-9_]*";
  }
  return std::nullopt;
}

std::string quoted(std::string_view table) {
  auto dot = table.find('.');
  if (dot == std::string_view::npos) return fmt::format("\"{}\"", table);
  return fmt::format("\"{}\".\"{}\"", table.substr(0, dot), table.substr(dot + 1));
}

}  // namespace

std::string add_resign_column_sql(const Tables& t) {
  // Only when absent: ALTER TABLE would take an ACCESS EXCLUSIVE lock even to
  // find the column there, queueing every renewal behind any open transaction.
  return fmt::format(
      "DO $$ BEGIN\n"
      "  IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = '{0}'::regclass AND attname = 'resign_term'\n"
      "                 AND NOT attisdropped) THEN\n"
      "    ALTER TABLE {0} ADD COLUMN resign_term bigint;\n"
      "  END IF;\n"
      "END $$;\n",
      t.live);
}

std::optional<std::string> check_table_name(std::string_view table) {
  auto dot = table.find('.');
  const bool qualified = dot != std::string_view::npos;
  auto why = check_part(table.substr(0, dot), qualified ? kMaxIdentifier : kMaxIdentifier - kTermsSuffix.size());
  if (!why && qualified) why = check_part(table.substr(dot + 1), kMaxIdentifier - kTermsSuffix.size());
  if (!why) return std::nullopt;
  return fmt::format("table name \"{}\" {} (optionally schema.table; the table part leaves room for \"{}\")",
                     table.substr(0, 80), *why, kTermsSuffix);
}

Tables quoted_tables(std::string_view table) {
  return {quoted(table), quoted(std::string(table) + std::string(kTermsSuffix))};
}

std::string create_tables_sql(const Tables& t) {
  return fmt::format(
      "CREATE UNLOGGED TABLE IF NOT EXISTS {} (\n"
      "  name text PRIMARY KEY,\n"
      "  owner text,                   -- NULL: nobody holds it (free, or quarantined until expiry_ms)\n"
      "  expiry_ms bigint NOT NULL,    -- epoch ms, the caller's clock\n"
      "  renewed_at_ms bigint NOT NULL,\n"
      "  term bigint NOT NULL,\n"
      "  resign_term bigint            -- the term whose holder was asked to step down (lease resign)\n"
      ");\n"
      "{}"
      "CREATE TABLE IF NOT EXISTS {} (\n"
      "  name text PRIMARY KEY,\n"
      "  term bigint NOT NULL,         -- the last term granted: never repeated\n"
      "  ttl_ms bigint NOT NULL        -- the largest TTL ever granted\n"
      ")",
      t.live, add_resign_column_sql(t), t.terms);
}

std::string create_tables_serialised_sql(const Tables& t) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a of the quoted name: the lock key
  for (unsigned char c : t.live) h = (h ^ c) * 1099511628211ull;
  return fmt::format("SELECT pg_advisory_xact_lock({}); {}", static_cast<std::int64_t>(h), create_tables_sql(t));
}

std::string migrate_from_logged_sql(const Tables& t) {
  // expiry_ms - renewed_at_ms is the TTL of the row's last grant or renewal.
  return fmt::format(
      "BEGIN;\n"
      "LOCK TABLE {live} IN ACCESS EXCLUSIVE MODE;\n"
      "CREATE TABLE IF NOT EXISTS {terms} (name text PRIMARY KEY, term bigint NOT NULL, ttl_ms bigint NOT NULL);\n"
      "INSERT INTO {terms} AS r (name, term, ttl_ms)\n"
      "  SELECT name, term, greatest(expiry_ms - renewed_at_ms, 0) FROM {live} WHERE term > 0\n"
      "  {raise};\n"
      "ALTER TABLE {live} SET UNLOGGED;\n"
      "{resign}"
      "COMMIT;\n",
      fmt::arg("live", t.live), fmt::arg("terms", t.terms), fmt::arg("raise", kRaiseRecord),
      fmt::arg("resign", add_resign_column_sql(t)));
}

}  // namespace forgemeter::pg
