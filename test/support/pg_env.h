// Test support: reaching the suite's PostgreSQL server, and plain blocking
// sessions for tests to set up faults (row locks, pg_terminate_backend).
//
// The suite's server is FORGEMETER_TEST_PG (a conninfo; `scripts/dev test`
// starts one and exports it). Unset, a Postgres-backed test FAILS, unless
// FORGEMETER_SKIP_PG=1, when it is skipped (support/skips.h: ctest shows the
// binary Skipped).
//
// A test on the suite's server: FM_SUITE_PG_TEST("name") { ... *pg ... }
#pragma once

#include <doctest/doctest.h>
#include <libpq-fe.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fmtest {

// The suite's conninfo, or nullopt after failing/skipping the current test
// loudly (for code that is not a whole test; a test is an FM_SUITE_PG_TEST).
std::optional<std::string> suite_pg();

// A decorator: skip (and record it) when FORGEMETER_SKIP_PG=1 and there is
// no FORGEMETER_TEST_PG. Evaluated when a test registers, before main.
doctest::skip suite_pg_skip();

// The fixture of an FM_SUITE_PG_TEST: `pg` is the suite's conninfo (always
// set; an optional so that bodies read `*pg` as suite_pg()'s callers did).
// Constructing it FAILS the test when FORGEMETER_TEST_PG is unset.
struct SuitePg {
  SuitePg();
  std::optional<std::string> pg;
};

// True (after saying so loudly) when FORGEMETER_SKIP_PG=1: for tests that run
// a private server and so do not need FORGEMETER_TEST_PG.
bool pg_skip_requested();

// A table name no other test uses ("fm_t_<pid>_<n>_<random>").
std::string fresh_table_name();

using Row = std::vector<std::optional<std::string>>;

// One blocking libpq session (tests only; the store never blocks like this).
// Not thread-safe.
class PgSession {
 public:
  explicit PgSession(const std::string& conninfo);
  ~PgSession();
  PgSession(const PgSession&) = delete;
  PgSession& operator=(const PgSession&) = delete;

  bool connected() const;
  // Runs `sql` with text parameters; returns the rows, or nullopt with error().
  std::optional<std::vector<Row>> exec(const std::string& sql, const std::vector<std::string>& params = {});
  // Sends `sql` without waiting (for a statement that will block); collect()
  // waits for its answer.
  bool send(const std::string& sql);
  std::optional<std::vector<Row>> collect();
  const std::string& error() const { return error_; }
  int backend_pid() const;

 private:
  std::optional<std::vector<Row>> take(PGresult* r);
  PGconn* conn_;
  std::string error_;
};

// A table dropped when this goes out of scope.
class ScratchTable {
 public:
  explicit ScratchTable(std::string conninfo) : conninfo_(std::move(conninfo)), name_(fresh_table_name()) {}
  ~ScratchTable();
  ScratchTable(const ScratchTable&) = delete;
  ScratchTable& operator=(const ScratchTable&) = delete;
  const std::string& name() const { return name_; }

 private:
  std::string conninfo_;
  std::string name_;
};

}  // namespace fmtest

// TEST_CASE for a test that needs the suite's server, skipped as suite_pg_skip() says.
#define FM_SUITE_PG_TEST(decorators) TEST_CASE_FIXTURE(fmtest::SuitePg, decorators* fmtest::suite_pg_skip())
