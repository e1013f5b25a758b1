// PostgresStore's two tables (an UNLOGGED live table, a logged terms table):
// which calls write the durable record, the quarantine of a name whose live
// state was lost (simulated here with TRUNCATE, which empties the live table
// as crash recovery does; test/postgres/pg_crash_test.cc crashes a real
// server), and the migration from the one-logged-table layout.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "forgemeter/postgres_store.h"
#include "store_calls.h"
#include "support/pg_env.h"

using namespace std::chrono_literals;
using forgemeter::LeaseState;
using forgemeter::LeaseStatus;
using forgemeter::PostgresStore;
using pgtest::ok;
using pgtest::t0;

namespace {

// The live table and its terms table, dropped at the end.
struct Tables {
  explicit Tables(const std::string& conninfo) : s(conninfo), live(conninfo), terms(live.name() + "_terms") {}
  ~Tables() { s.exec("DROP TABLE IF EXISTS \"" + terms + "\""); }
  // One value of the first row of `sql`, or "" when there is no row.
  std::string one(const std::string& sql) {
    auto rows = s.exec(sql);
    REQUIRE(rows);
    return rows->empty() || !(*rows)[0][0] ? std::string() : *(*rows)[0][0];
  }
  // "term/ttl_ms/xmin" of the durable record, or "" without one.
  std::string record(const std::string& name) {
    return one("SELECT term || '/' || ttl_ms || '/' || xmin FROM \"" + terms + "\" WHERE name = '" + name + "'");
  }
  std::string live_xmin(const std::string& name) {
    return one("SELECT xmin FROM \"" + live.name() + "\" WHERE name = '" + name + "'");
  }
  void lose_live_state() { REQUIRE(s.exec("TRUNCATE \"" + live.name() + "\"")); }
  fmtest::PgSession s;
  fmtest::ScratchTable live;
  std::string terms;
};

}  // namespace

TEST_CASE("postgres layout: an UNLOGGED live table; the logged terms table is written only on a change of hands") {
  auto pg = fmtest::suite_pg();
  if (!pg) return;
  Tables t(*pg);
  PostgresStore store({.conninfo = *pg, .table = t.live.name()});
  REQUIRE(store.acquire("gate", "a", t0, 10s, ok()).status == LeaseStatus::granted);
  CHECK(t.one("SELECT relpersistence FROM pg_class WHERE oid = '\"" + t.live.name() + "\"'::regclass") == "u");
  CHECK(t.one("SELECT relpersistence FROM pg_class WHERE oid = '\"" + t.terms + "\"'::regclass") == "p");
  const std::string first = t.record("gate");
  CHECK(first.rfind("1/10000/", 0) == 0);  // the first grant is recorded

  // The holder's renewals and re-acquires, a candidate's polling and the
  // release leave the record alone; polling does not even touch the live row.
  CHECK(store.renew("gate", "a", t0 + 1s, 10s, ok()).status == LeaseStatus::granted);
  CHECK(store.acquire("gate", "a", t0 + 2s, 5s, ok()).status == LeaseStatus::granted);
  const std::string live = t.live_xmin("gate");
  CHECK(store.acquire("gate", "b", t0 + 3s, 10s, ok()).status == LeaseStatus::refused);
  CHECK(t.live_xmin("gate") == live);
  CHECK(store.release("gate", "a", ok()).status == LeaseStatus::released);
  CHECK(t.record("gate") == first);

  // A change of hands records the new term; a larger TTL is recorded too.
  auto b = store.acquire("gate", "b", t0 + 4s, 10s, ok());
  REQUIRE(b.status == LeaseStatus::granted);
  CHECK(b.term == 2);
  CHECK(t.record("gate").rfind("2/10000/", 0) == 0);
  CHECK(store.renew("gate", "b", t0 + 5s, 30s, ok()).status == LeaseStatus::granted);
  CHECK(t.record("gate").rfind("2/30000/", 0) == 0);
  CHECK(store.renew("gate", "b", t0 + 6s, 10s, ok()).status == LeaseStatus::granted);
  CHECK(t.record("gate").rfind("2/30000/", 0) == 0);  // the largest TTL stays
}

TEST_CASE("postgres layout: lost live state quarantines the name for the recorded TTL, then term + 1") {
  auto pg = fmtest::suite_pg();
  if (!pg) return;
  Tables t(*pg);
  PostgresStore store({.conninfo = *pg, .table = t.live.name()});
  REQUIRE(store.acquire("gate", "a", t0, 10s, ok()).status == LeaseStatus::granted);
  REQUIRE(store.acquire("gate", "b", t0 + 11s, 20s, ok()).term == 2);  // recorded TTL 20 s
  REQUIRE(store.renew("gate", "b", t0 + 12s, 8s, ok()).status == LeaseStatus::granted);
  t.lose_live_state();

  auto seen = store.inspect("gate", ok());
  CHECK(seen.status == LeaseState::Status::free);
  CHECK(seen.term == 2);                                                               // never backwards
  CHECK(store.renew("gate", "b", t0 + 13s, 8s, ok()).status == LeaseStatus::refused);  // never re-created
  CHECK(t.live_xmin("gate").empty());

  // The first attempt after the loss, at t0 + 14 s: quarantined until t0 + 34 s.
  auto q = store.acquire("gate", "c", t0 + 14s, 8s, ok());
  CHECK(q.status == LeaseStatus::refused);
  CHECK(q.holder.empty());
  CHECK(q.term == 2);
  CHECK(store.acquire("gate", "b", t0 + 20s, 8s, ok()).status == LeaseStatus::refused);  // the old holder too
  CHECK(store.renew("gate", "b", t0 + 20s, 8s, ok()).status == LeaseStatus::refused);
  CHECK(store.release("gate", "b", ok()).status == LeaseStatus::not_held);
  CHECK(store.acquire("gate", "c", t0 + 34s - 1ms, 8s, ok()).status == LeaseStatus::refused);
  auto granted = store.acquire("gate", "c", t0 + 34s, 8s, ok());
  CHECK(granted.status == LeaseStatus::granted);
  CHECK(granted.term == 3);
  CHECK(t.record("gate").rfind("3/20000/", 0) == 0);

  // A name never taken is still taken at once, at term 1.
  auto fresh = store.acquire("other", "c", t0 + 14s, 8s, ok());
  CHECK(fresh.status == LeaseStatus::granted);
  CHECK(fresh.term == 1);
}

TEST_CASE("postgres layout: the migration from one logged table keeps every term") {
  auto pg = fmtest::suite_pg();
  if (!pg) return;
  Tables t(*pg);
  const std::string q = "\"" + t.live.name() + "\"";
  REQUIRE(t.s.exec("CREATE TABLE " + q +
                   " (name text PRIMARY KEY, owner text, expiry_ms bigint NOT NULL, renewed_at_ms bigint NOT NULL, "
                   "term bigint NOT NULL)"));
  // "gate": held by a since t0 with a 10 s TTL, term 5; "free": released at term 3.
  REQUIRE(t.s.exec("INSERT INTO " + q + " VALUES ('gate', 'a', 1790000010000, 1790000000000, 5), ('free', NULL, 0, " +
                   "1790000000000, 3)"));
  PostgresStore store({.conninfo = *pg, .table = t.live.name()});
  CHECK(store.acquire("gate", "b", t0 + 1s, 10s, ok()).status ==
        LeaseStatus::refused);  // works on the one-table layout

  REQUIRE(t.s.send(PostgresStore::migration_from_logged_sql(t.live.name())));
  REQUIRE(t.s.collect());
  CHECK(t.one("SELECT relpersistence FROM pg_class WHERE oid = '" + q + "'::regclass") == "u");
  CHECK(t.record("gate").rfind("5/10000/", 0) == 0);
  CHECK(t.record("free").rfind("3/", 0) == 0);
  CHECK(store.renew("gate", "a", t0 + 2s, 10s, ok()).status == LeaseStatus::granted);  // the rows stay

  t.lose_live_state();
  CHECK(store.acquire("gate", "b", t0 + 3s, 10s, ok()).status == LeaseStatus::refused);  // quarantined
  CHECK(store.acquire("gate", "b", t0 + 13s, 10s, ok()).term == 6);
  // Released before: nothing to wait for (recorded TTL 0), past the first attempt.
  CHECK(store.acquire("free", "b", t0 + 3s, 10s, ok()).status == LeaseStatus::refused);
  CHECK(store.acquire("free", "b", t0 + 3s, 10s, ok()).term == 4);
}
