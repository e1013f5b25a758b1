#include "support/pg_env.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <random>

#include "support/skips.h"

namespace fmtest {

std::optional<std::string> suite_pg() {
  const char* conninfo = std::getenv("FORGEMETER_TEST_PG");
  if (conninfo && *conninfo) return std::string(conninfo);
  const char* skip = std::getenv("FORGEMETER_SKIP_PG");
  if (skip && std::string_view(skip) == "1") {
    MESSAGE("SKIPPED (FORGEMETER_SKIP_PG=1): this PostgreSQL-backed test did not run");
    skipped("FORGEMETER_SKIP_PG=1: PostgreSQL-backed tests did not run");
    return std::nullopt;
  }
  FAIL(
      "FORGEMETER_TEST_PG is not set: run `scripts/dev test` (it starts a throwaway PostgreSQL), "
      "or set FORGEMETER_SKIP_PG=1 to skip the PostgreSQL-backed tests on purpose");
  return std::nullopt;
}

doctest::skip suite_pg_skip() {
  const char* conninfo = std::getenv("FORGEMETER_TEST_PG");
  if (conninfo && *conninfo) return doctest::skip(false);
  const char* skip = std::getenv("FORGEMETER_SKIP_PG");
  const bool skipping = skip && std::string_view(skip) == "1";
  if (skipping) skipped("FORGEMETER_SKIP_PG=1: PostgreSQL-backed tests did not run");
  return doctest::skip(skipping);
}

SuitePg::SuitePg() : pg(suite_pg()) {}

bool pg_skip_requested() {
  const char* skip = std::getenv("FORGEMETER_SKIP_PG");
  if (!skip || std::string_view(skip) != "1") return false;
  MESSAGE("SKIPPED (FORGEMETER_SKIP_PG=1): this PostgreSQL-backed test (private server) did not run");
  skipped("FORGEMETER_SKIP_PG=1: PostgreSQL-backed tests did not run");
  return true;
}

std::string fresh_table_name() {
  static std::atomic<unsigned> counter{0};
  static const unsigned salt = std::random_device{}() % 1000000;
  return "fm_t_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" + std::to_string(salt);
}

PgSession::PgSession(const std::string& conninfo) : conn_(PQconnectdb(conninfo.c_str())) {
  if (PQstatus(conn_) != CONNECTION_OK)
    error_ = PQerrorMessage(conn_);
  else
    PQclear(PQexec(conn_, "SET client_min_messages = warning"));
}

PgSession::~PgSession() { PQfinish(conn_); }

bool PgSession::connected() const { return PQstatus(conn_) == CONNECTION_OK; }

int PgSession::backend_pid() const { return PQbackendPID(conn_); }

std::optional<std::vector<Row>> PgSession::take(PGresult* r) {
  auto st = PQresultStatus(r);
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
    error_ = r ? PQresultErrorMessage(r) : PQerrorMessage(conn_);
    PQclear(r);
    return std::nullopt;
  }
  std::vector<Row> rows;
  for (int i = 0; i < PQntuples(r); ++i) {
    Row row;
    for (int j = 0; j < PQnfields(r); ++j) {
      if (PQgetisnull(r, i, j))
        row.emplace_back(std::nullopt);
      else
        row.emplace_back(std::string(PQgetvalue(r, i, j), static_cast<std::size_t>(PQgetlength(r, i, j))));
    }
    rows.push_back(std::move(row));
  }
  PQclear(r);
  return rows;
}

std::optional<std::vector<Row>> PgSession::exec(const std::string& sql, const std::vector<std::string>& params) {
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p.c_str());
  return take(
      PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr, nullptr, 0));
}

bool PgSession::send(const std::string& sql) {
  if (PQsendQuery(conn_, sql.c_str()) != 0) return true;
  error_ = PQerrorMessage(conn_);
  return false;
}

std::optional<std::vector<Row>> PgSession::collect() {
  std::optional<std::vector<Row>> last;
  while (PGresult* r = PQgetResult(conn_)) last = take(r);
  return last;
}

ScratchTable::~ScratchTable() {
  PgSession s(conninfo_);
  s.exec("DROP TABLE IF EXISTS \"" + name_ + "\", \"" + name_ + "_terms\"");  // the store's two tables
}

}  // namespace fmtest
