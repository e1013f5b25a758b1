// Test helper: a PRIVATE PostgreSQL for a test that stops, restarts or
// crashes it (support/pg_instance.h), or nullptr after FAILing the test.
#pragma once

#include <doctest/doctest.h>

#include <exception>
#include <memory>
#include <string>

#include "forgemeter/postgres_store.h"
#include "support/campaign_spans.h"
#include "support/pg_instance.h"

namespace fmtest {

inline std::unique_ptr<fmtest::PrivatePg> private_server() {
  try {
    return std::make_unique<fmtest::PrivatePg>();
  } catch (const std::exception& e) {
    FAIL("cannot run a private PostgreSQL for this test: " << e.what());
  }
  return nullptr;
}

// Each candidate's own PostgresStore on `table` of `conninfo`.
inline fmtest::StoreMaker pg_stores(std::string conninfo, std::string table) {
  return [conninfo, table](const std::string& owner) -> std::unique_ptr<forgemeter::LeaseStore> {
    return std::make_unique<forgemeter::PostgresStore>(forgemeter::PostgresStoreOptions{
        .conninfo = conninfo, .table = table, .max_connections = 2, .application_name = "fm-" + owner});
  };
}

}  // namespace fmtest
