// The lease store conformance suite (test/lease/conformance.h) against
// PostgresStore on the suite's server: a fresh table per test, and every
// peer() a separate store object with its own connections, so the 8-candidate
// races run each candidate on its own connection.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "forgemeter/postgres_store.h"
#include "lease/conformance.h"
#include "support/pg_env.h"

namespace {

struct PostgresFactory final : forgemeter::conformance::StoreFactory {
  std::shared_ptr<forgemeter::LeaseStore> fresh() override {
    auto pg = fmtest::suite_pg();
    REQUIRE(pg);
    conninfo = *pg;
    tables.push_back(std::make_unique<fmtest::ScratchTable>(conninfo));
    return make();
  }
  std::shared_ptr<forgemeter::LeaseStore> peer(const std::shared_ptr<forgemeter::LeaseStore>&) override {
    return make();
  }
  std::shared_ptr<forgemeter::LeaseStore> make() {
    return std::make_shared<forgemeter::PostgresStore>(
        forgemeter::PostgresStoreOptions{.conninfo = conninfo, .table = tables.back()->name(), .max_connections = 2});
  }
  std::string conninfo;
  std::vector<std::unique_ptr<fmtest::ScratchTable>> tables;  // dropped after the stores (declared after conninfo)
};

}  // namespace

TEST_CASE("postgres conformance: the suite's server") {
  auto pg = fmtest::suite_pg();  // fails loudly when unset, or says it skips
  if (pg) MESSAGE("conformance suite against PostgreSQL at: " << *pg);
}

TEST_SUITE_BEGIN("postgres conformance" * fmtest::suite_pg_skip());
FORGEMETER_LEASE_CONFORMANCE("postgres", PostgresFactory)
TEST_SUITE_END();
