// The PostgreSQL store's listening session (src/lease/postgres/listener.h):
// killed by pg_terminate_backend, it reconnects by itself, and a release
// after that wakes a waiting candidate again; while it is down, nothing is
// lost for good (every waiter is woken when it comes back). Margins: 10 s for
// a reconnection (50 ms backoff; a loaded machine), 1 s for a wake-up.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>

#include "forgemeter/postgres_store.h"
#include "lease/wake_check.h"
#include "support/eventually.h"
#include "support/pg_env.h"

using namespace std::chrono_literals;
using fmtest::take_and_release_wake;
using fmtest::within;

namespace {

// The backends of `app` that last ran LISTEN: the listening sessions.
std::vector<std::string> listeners(fmtest::PgSession& admin, const std::string& app) {
  auto rows =
      admin.exec("SELECT pid::text FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'", {app});
  REQUIRE(rows);
  std::vector<std::string> pids;
  for (const auto& r : *rows) pids.push_back(*r[0]);
  return pids;
}

}  // namespace

FM_SUITE_PG_TEST("postgres wake-ups: a listening session killed by pg_terminate_backend reconnects by itself") {
  fmtest::ScratchTable table(*pg);
  const std::string app = "fm-wake-" + table.name();
  forgemeter::PostgresStore holder({.conninfo = *pg, .table = table.name()});
  forgemeter::PostgresStore candidate({.conninfo = *pg, .table = table.name(), .application_name = app});
  fmtest::PgSession admin(*pg);
  CHECK_FALSE(candidate.listening());  // nothing opened before a candidate's first mark
  candidate.change_mark("w");
  REQUIRE(fmtest::eventually([&] { return candidate.listening() && listeners(admin, app).size() == 1; }, 10s));
  take_and_release_wake(holder, candidate, "w");

  const std::string killed = listeners(admin, app).at(0);
  const std::uint64_t mark = candidate.change_mark("w");
  REQUIRE(admin.exec("SELECT pg_terminate_backend($1::int)", {killed}));
  // Losing the session wakes the waiter (a change may have been missed).
  CHECK(candidate.wait_for_change("w", mark, within(5s)));
  REQUIRE(fmtest::eventually(
      [&] {
        const auto now = listeners(admin, app);
        return candidate.listening() && now.size() == 1 && now[0] != killed;
      },
      10s));
  take_and_release_wake(holder, candidate, "w");
}
