// Exclusion when an operator makes a mistake, on PostgreSQL
// (test/lease/exclusion.h): two campaigns given one owner name, each on its
// own store (its own sessions, as two processes), are two holders; a terms
// record written by hand at bigint's largest term is refused with the reason,
// never wrapped, where the statement used to fail with "bigint out of range".
#include <doctest/doctest.h>

#include <string>

#include "forgemeter/postgres_store.h"
#include "lease/exclusion.h"
#include "support/pg_env.h"

FM_SUITE_PG_TEST("postgres exclusion: a second campaign with the same owner is refused as another owner") {
  fmtest::ScratchTable table(*pg);
  forgemeter::PostgresStore a({.conninfo = *pg, .table = table.name()});
  forgemeter::PostgresStore b({.conninfo = *pg, .table = table.name()});
  fmtest::same_owner_is_refused(a, b, "same-owner");
}

FM_SUITE_PG_TEST("postgres exclusion: a term at bigint's largest cannot increase: refused with the reason") {
  fmtest::ScratchTable table(*pg);
  forgemeter::PostgresStore store({.conninfo = *pg, .table = table.name()});
  using namespace std::chrono_literals;
  // The store creates its tables; then a session writes the record by hand.
  REQUIRE(store.inspect("worn", forgemeter::Deadline::after(forgemeter::system_clock(), 10s)).answered());
  fmtest::PgSession admin(*pg);
  REQUIRE(admin.exec("INSERT INTO \"" + table.name() + "_terms\" (name, term, ttl_ms) VALUES ('worn', " +
                     "9223372036854775807, 1000)"));
  fmtest::term_cannot_increase(store, "worn", 9223372036854775807ULL);
  // A lease expired in its live row at that term, as a holder would leave it.
  REQUIRE(admin.exec("INSERT INTO \"" + table.name() + "_terms\" (name, term, ttl_ms) VALUES ('held', " +
                     "9223372036854775807, 1000)"));
  REQUIRE(admin.exec("INSERT INTO \"" + table.name() + "\" (name, owner, expiry_ms, renewed_at_ms, term) VALUES " +
                     "('held', 'old', 1000, 0, 9223372036854775807)"));
  fmtest::term_cannot_increase(store, "held", 9223372036854775807ULL);
}
