// PostgresStore beyond the conformance rows: options, the table and its SQL,
// text that tries to break out of a parameter, deadlines on connect, the pool.
#include <doctest/doctest.h>
#include <libpq-fe.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "forgemeter/postgres_store.h"
#include "forgemeter/testing/manual_clock.h"
#include "store_calls.h"
#include "support/pg_env.h"
#include "support/pg_listener.h"

using namespace std::chrono_literals;
using forgemeter::Deadline;
using forgemeter::LeaseState;
using forgemeter::LeaseStatus;
using forgemeter::PostgresStore;
using forgemeter::PostgresStoreOptions;

namespace {

using pgtest::ok;
using pgtest::t0;

PostgresStoreOptions opts(const std::string& conninfo, const std::string& table) {
  return {.conninfo = conninfo, .table = table};
}

std::string count_rows(fmtest::PgSession& s, const std::string& table) {
  auto rows = s.exec("SELECT count(*) FROM \"" + table + "\"");
  REQUIRE(rows);
  return *(*rows)[0][0];
}

// "host=H port=P user=U dbname=D" as postgresql://U@H:P/D.
std::string as_uri(const std::string& conninfo) {
  char* err = nullptr;
  PQconninfoOption* o = PQconninfoParse(conninfo.c_str(), &err);
  REQUIRE(o);
  std::string host, port, user, db;
  for (auto* p = o; p->keyword; ++p) {
    if (!p->val) continue;
    std::string_view k = p->keyword;
    if (k == "host") host = p->val;
    if (k == "port") port = p->val;
    if (k == "user") user = p->val;
    if (k == "dbname") db = p->val;
  }
  PQconninfoFree(o);
  return "postgresql://" + user + "@" + host + ":" + port + "/" + db;
}

}  // namespace

TEST_CASE("postgres store: unusable options are refused at construction, without connecting") {
  CHECK_THROWS_AS(PostgresStore({.conninfo = "host=127.0.0.1", .table = "bad name"}), std::invalid_argument);
  CHECK_THROWS_AS(PostgresStore({.conninfo = "host=127.0.0.1", .table = "x\"; DROP TABLE y; --"}),
                  std::invalid_argument);
  CHECK_THROWS_AS(PostgresStore({.conninfo = "host=127.0.0.1", .table = ""}), std::invalid_argument);
  CHECK_THROWS_AS(PostgresStore({.conninfo = "host=127.0.0.1", .table = "1abc"}), std::invalid_argument);
  CHECK_THROWS_AS(PostgresStore({.conninfo = "host=127.0.0.1", .table = "a.b.c"}), std::invalid_argument);
  CHECK_THROWS_AS(PostgresStore({.conninfo = "host=127.0.0.1", .table = std::string(64, 'a')}), std::invalid_argument);
  // "<table>_terms" must fit in 63 bytes too
  CHECK_THROWS_AS(PostgresStore({.conninfo = "host=127.0.0.1", .table = std::string(58, 'a')}), std::invalid_argument);
  CHECK_THROWS_AS(PostgresStore({.conninfo = "host=127.0.0.1", .table = "s." + std::string(58, 'a')}),
                  std::invalid_argument);
  CHECK_NOTHROW(
      PostgresStore({.conninfo = "host=127.0.0.1", .table = std::string(63, 's') + "." + std::string(57, 'a')}));
  CHECK_THROWS_AS(PostgresStore({.conninfo = "host='unterminated"}), std::invalid_argument);
  CHECK_THROWS_AS(PostgresStore({.conninfo = "nosuchkey=1"}), std::invalid_argument);
  CHECK_THROWS_AS(PostgresStore({.conninfo = "postgresql://[::1"}), std::invalid_argument);
  CHECK_THROWS_AS(PostgresStore({.conninfo = "host=127.0.0.1", .max_connections = 0}), std::invalid_argument);
  CHECK_NOTHROW(PostgresStore({.conninfo = "host=127.0.0.1 port=1", .table = "Leases_2"}));
  CHECK_NOTHROW(PostgresStore({.conninfo = "postgresql://u@127.0.0.1:1/db", .table = "ops.leases"}));
}

TEST_CASE("postgres store: schema_sql is the documented migration, the name quoted") {
  auto sql = PostgresStore::schema_sql("ops.Leases");
  CHECK(sql.find("CREATE UNLOGGED TABLE IF NOT EXISTS \"ops\".\"Leases\"") == 0);
  auto terms = sql.find("CREATE TABLE IF NOT EXISTS \"ops\".\"Leases_terms\"");
  REQUIRE(terms != std::string::npos);
  for (auto col : {"name text PRIMARY KEY", "owner text", "expiry_ms bigint", "renewed_at_ms bigint", "term bigint"})
    CHECK(sql.find(col) < terms);
  for (auto col : {"name text PRIMARY KEY", "term bigint", "ttl_ms bigint"})
    CHECK(sql.find(col, terms) != std::string::npos);
  CHECK(PostgresStore::schema_sql().find("\"forgemeter_leases\"") != std::string::npos);
  CHECK_THROWS_AS(PostgresStore::schema_sql("no-dash"), std::invalid_argument);
}

TEST_CASE("postgres store: one row per lease, the caller's instants, term; conninfo or URI") {
  auto pg = fmtest::suite_pg();
  if (!pg) return;
  fmtest::ScratchTable table(*pg);
  PostgresStore store(opts(*pg, table.name()));
  PostgresStore by_uri(opts(as_uri(*pg), table.name()));
  auto r = store.acquire("sweep", "a", t0 + 1500us, 10s, ok());
  REQUIRE(r.status == LeaseStatus::granted);
  CHECK(by_uri.inspect("sweep", ok()).holder == "a");
  CHECK(by_uri.renew("sweep", "a", t0 + 2s, 10s, ok()).status == LeaseStatus::granted);

  fmtest::PgSession s(*pg);
  auto rows = s.exec("SELECT name, owner, expiry_ms, renewed_at_ms, term FROM \"" + table.name() + "\"");
  REQUIRE(rows);
  REQUIRE(rows->size() == 1);
  const auto& row = (*rows)[0];
  CHECK(*row[0] == "sweep");
  CHECK(*row[1] == "a");
  CHECK(*row[2] == "1790000012000");  // the caller's clock, never the server's now()
  CHECK(*row[3] == "1790000002000");
  CHECK(*row[4] == "1");
  CHECK(store.release("sweep", "a", ok()).status == LeaseStatus::released);
  rows = s.exec("SELECT owner IS NULL, term FROM \"" + table.name() + "\"");
  REQUIRE(rows);
  CHECK(*(*rows)[0][0] == "t");
  CHECK(*(*rows)[0][1] == "1");  // release keeps the term
}

TEST_CASE("postgres store: names and owners that try to break out of SQL are kept byte for byte") {
  auto pg = fmtest::suite_pg();
  if (!pg) return;
  fmtest::ScratchTable table(*pg);
  PostgresStore store(opts(*pg, table.name()));
  const std::vector<std::string> texts = {
      "it's",      "a\"b",      "back\\slash\\",       "'); DROP TABLE " + table.name() + "; --",
      "$1 $2",     "tab\there", "новый лидер",         "リーダー",
      "🦀 crab", "E'\\x00'",  std::string(200, 'x'), "line\nbreak",
      "%s%n"};
  int n = 0;
  for (const auto& text : texts) {
    CAPTURE(text);
    std::string owner = "owner " + text;
    if (owner.size() > 200) owner.resize(200);
    auto r = store.acquire(text, owner, t0, 10s, ok());
    CHECK(r.status == LeaseStatus::granted);
    CHECK(r.holder == owner);
    auto i = store.inspect(text, ok());
    CHECK(i.holder == owner);
    CHECK(store.acquire(text, "someone else", t0, 10s, ok()).holder == owner);
    ++n;
  }
  fmtest::PgSession s(*pg);
  CHECK(count_rows(s, table.name()) == std::to_string(n));
  auto back = s.exec("SELECT owner FROM \"" + table.name() + "\" WHERE name = $1", {"новый лидер"});
  REQUIRE(back);
  CHECK(*(*back)[0][0] == "owner новый лидер");
}

TEST_CASE("postgres store: NUL bytes and bad UTF-8 are invalid and write nothing") {
  auto pg = fmtest::suite_pg();
  if (!pg) return;
  fmtest::ScratchTable table(*pg);
  PostgresStore store(opts(*pg, table.name()));
  REQUIRE(store.inspect("warm-up", ok()).status == LeaseState::Status::free);  // creates the table
  const std::string nul("a\0b", 3), bad("\xff\xfe", 2);
  for (const auto& [name, owner] : std::vector<std::pair<std::string, std::string>>{
           {nul, "o"}, {"n", nul}, {bad, "o"}, {"n", bad}, {"", "o"}, {"n", "  "}}) {
    auto r = store.acquire(name, owner, t0, 10s, ok());
    CHECK(r.status == LeaseStatus::invalid);
    CHECK_FALSE(r.error.empty());
    CHECK(store.renew(name, owner, t0, 10s, ok()).status == LeaseStatus::invalid);
    CHECK(store.release(name, owner, ok()).status == LeaseStatus::invalid);
  }
  CHECK(store.inspect(nul, ok()).status == LeaseState::Status::invalid);
  fmtest::PgSession s(*pg);
  CHECK(count_rows(s, table.name()) == "0");
}

TEST_CASE("postgres store: a schema-qualified table; a missing table with create_table off says so") {
  auto pg = fmtest::suite_pg();
  if (!pg) return;
  fmtest::PgSession s(*pg);
  const std::string schema = fmtest::fresh_table_name();
  REQUIRE(s.exec("CREATE SCHEMA \"" + schema + "\""));
  {
    PostgresStore off({.conninfo = *pg, .table = schema + ".Leases", .create_table = false});
    auto r = off.acquire("sweep", "a", t0, 10s, ok());
    CHECK(r.status == LeaseStatus::no_answer);
    CHECK(r.error.find("Leases") != std::string::npos);                     // names the missing table
    for (char ch : r.error) CHECK(static_cast<unsigned char>(ch) >= 0x20);  // one line for a log: no control bytes
    REQUIRE(s.send(PostgresStore::schema_sql(schema + ".Leases")));
    REQUIRE(s.collect());
    CHECK(off.acquire("sweep", "a", t0, 10s, ok()).status == LeaseStatus::granted);
    PostgresStore on({.conninfo = *pg, .table = schema + ".Leases"});
    CHECK(on.inspect("sweep", ok()).holder == "a");
    CHECK(count_rows(s, schema + "\".\"Leases") == "1");
  }
  s.exec("DROP SCHEMA \"" + schema + "\" CASCADE");
}

TEST_CASE("postgres store: a deadline already passed sends nothing, not even a connection") {
  auto pg = fmtest::suite_pg();
  if (!pg) return;
  fmtest::ScratchTable table(*pg);
  const std::string app = "fm-nothing-sent-" + table.name();
  PostgresStore store({.conninfo = *pg, .table = table.name(), .application_name = app});
  Deadline gone{&forgemeter::system_clock(), forgemeter::system_clock().steady_now() - 1ms};
  CHECK(store.acquire("sweep", "a", t0, 10s, gone).status == LeaseStatus::no_answer);
  CHECK(store.release("sweep", "a", gone).status == LeaseStatus::no_answer);
  fmtest::PgSession s(*pg);
  auto rows = s.exec("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", {app});
  REQUIRE(rows);
  CHECK(*(*rows)[0][0] == "0");
  auto exists = s.exec("SELECT to_regclass($1) IS NULL", {"\"" + table.name() + "\""});
  REQUIRE(exists);
  CHECK(*(*exists)[0][0] == "t");  // not even the table was created
}

TEST_CASE("postgres store: an unreachable server is no answer, within the deadline") {
  // Margins: a refused loopback connect fails in well under 100 ms; a server
  // that accepts TCP but never speaks is abandoned at the 300 ms deadline, and
  // we allow 250 ms on top for a loaded 2-core CI machine.
  SUBCASE("nothing listens") {
    fmtest::SilentListener closed;  // bound, then closed: the port refuses
    int port = closed.port();
    closed.close();
    PostgresStore store({.conninfo = "host=127.0.0.1 port=" + std::to_string(port) + " user=x dbname=x"});
    auto start = std::chrono::steady_clock::now();
    auto r = store.acquire("sweep", "a", t0, 10s, Deadline::after(forgemeter::system_clock(), 5s));
    CHECK(r.status == LeaseStatus::no_answer);
    CHECK(r.error.find("connect") != std::string::npos);
    CHECK(std::chrono::steady_clock::now() - start < 1s);
  }
  SUBCASE("a listener that never answers the startup packet") {
    fmtest::SilentListener silent;
    PostgresStore store({.conninfo = "host=127.0.0.1 port=" + std::to_string(silent.port()) + " user=x dbname=x"});
    for (int i = 0; i < 2; ++i) {  // the second call reconnects and is bounded alike
      auto start = std::chrono::steady_clock::now();
      auto r = store.acquire("sweep", "a", t0, 10s, Deadline::after(forgemeter::system_clock(), 300ms));
      auto took = std::chrono::steady_clock::now() - start;
      CHECK(r.status == LeaseStatus::no_answer);
      CHECK(took >= 300ms);
      CHECK(took < 550ms);
    }
  }
  SUBCASE("a deadline on a ManualClock that never moves still ends the call in real time") {
    fmtest::SilentListener silent;
    forgemeter::ManualClock manual(forgemeter::UtcMillis(std::chrono::milliseconds(1'790'000'000'000)));
    PostgresStore store({.conninfo = "host=127.0.0.1 port=" + std::to_string(silent.port()) + " user=x dbname=x"});
    auto start = std::chrono::steady_clock::now();
    auto r = store.acquire("sweep", "a", t0, 10s, Deadline::after(manual, 300ms));
    CHECK(r.status == LeaseStatus::no_answer);
    CHECK(std::chrono::steady_clock::now() - start < 550ms);
  }
}

TEST_CASE("postgres store: one store serves many threads at once from its pool") {
  auto pg = fmtest::suite_pg();
  if (!pg) return;
  fmtest::ScratchTable table(*pg);
  for (std::size_t pool : {std::size_t{1}, std::size_t{4}}) {
    CAPTURE(pool);
    PostgresStore store({.conninfo = *pg, .table = table.name(), .max_connections = pool});
    constexpr int kThreads = 6, kCalls = 20;
    std::atomic<int> granted{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::string name = "p" + std::to_string(pool) + "-" + std::to_string(t);
        for (int i = 0; i < kCalls; ++i) {
          auto r = store.acquire(name, "o", t0 + std::chrono::seconds(i), 10s, ok());
          if (r.status == LeaseStatus::granted) granted.fetch_add(1);
        }
      });
    }
    for (auto& t : threads) t.join();
    CHECK(granted.load() == kThreads * kCalls);
  }
}

TEST_CASE("postgres store: READ COMMITTED row locks serialise mixed racing calls") {
  // Several rounds: the holder renews and releases while 7 others acquire at
  // the same instant, each on its own store (own connection). Whatever the
  // interleaving, the answers must tell one consistent story: at most one
  // grant per round to a non-holder, and each change of hands adds one term.
  auto pg = fmtest::suite_pg();
  if (!pg) return;
  fmtest::ScratchTable table(*pg);
  constexpr int kStores = 8, kRounds = 15;
  std::vector<std::unique_ptr<PostgresStore>> stores;
  for (int i = 0; i < kStores; ++i) stores.push_back(std::make_unique<PostgresStore>(opts(*pg, table.name())));
  REQUIRE(stores[0]->acquire("mixed", "c0", t0, 10s, ok()).status == LeaseStatus::granted);
  std::uint64_t term = 1;
  std::string holder = "c0";
  for (int round = 1; round <= kRounds; ++round) {
    std::vector<forgemeter::LeaseResult> out(kStores);
    std::barrier start(kStores);
    std::vector<std::thread> threads;
    auto now = t0 + std::chrono::seconds(round);
    for (int c = 0; c < kStores; ++c) {
      threads.emplace_back([&, c] {
        std::string me = "c" + std::to_string(c);
        start.arrive_and_wait();
        if (me == holder) {
          stores[c]->renew("mixed", me, now, 10s, ok());
          out[c] = stores[c]->release("mixed", me, ok());
        } else {
          out[c] = stores[c]->acquire("mixed", me, now, 10s, ok());
        }
      });
    }
    for (auto& t : threads) t.join();
    const std::string previous = holder;
    int winners = 0;
    std::string winner;
    for (int c = 0; c < kStores; ++c) {
      std::string me = "c" + std::to_string(c);
      if (me == holder) {
        CHECK(out[c].status == LeaseStatus::released);  // nobody could take it before its release
        continue;
      }
      REQUIRE(out[c].answered());
      if (out[c].status == LeaseStatus::granted) {
        ++winners;
        winner = me;
      }
    }
    auto now_held = stores[0]->inspect("mixed", ok());
    if (winners == 0) {
      CHECK(now_held.status == LeaseState::Status::free);
      CHECK(now_held.term == term);
      REQUIRE(stores[0]->acquire("mixed", holder, now, 10s, ok()).status == LeaseStatus::granted);
      ++term;  // a take after release is a change of hands
    } else {
      CHECK(winners == 1);
      CHECK(now_held.holder == winner);
      ++term;
      CHECK(now_held.term == term);
      holder = winner;
    }
    for (int c = 0; c < kStores; ++c) {
      // A refusal came before the release (the old holder) or after the take (the winner).
      if (out[c].status == LeaseStatus::refused) CHECK((out[c].holder == previous || out[c].holder == winner));
    }
  }
}

TEST_CASE("postgres store: stores racing to create the same table all get it") {
  auto pg = fmtest::suite_pg();
  if (!pg) return;
  for (int round = 0; round < 3; ++round) {
    fmtest::ScratchTable table(*pg);
    constexpr int kStores = 8;
    std::vector<std::unique_ptr<PostgresStore>> stores;
    for (int i = 0; i < kStores; ++i) stores.push_back(std::make_unique<PostgresStore>(opts(*pg, table.name())));
    std::vector<LeaseStatus> out(kStores, LeaseStatus::no_answer);
    std::barrier start(kStores);
    std::vector<std::thread> threads;
    for (int i = 0; i < kStores; ++i)
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        out[i] = stores[i]->acquire("n" + std::to_string(i), "o", t0, 10s, ok()).status;
      });
    for (auto& t : threads) t.join();
    for (auto st : out) CHECK(st == LeaseStatus::granted);
  }
}
