// Test helper: a PRIVATE PostgreSQL for a test that stops, restarts or
// crashes it (support/pg_instance.h), or nullptr after FAILing the test.
#pragma once

#include <doctest/doctest.h>

#include <exception>
#include <memory>

#include "support/pg_instance.h"

namespace pgtest {

inline std::unique_ptr<fmtest::PrivatePg> private_server() {
  try {
    return std::make_unique<fmtest::PrivatePg>();
  } catch (const std::exception& e) {
    FAIL("cannot run a private PostgreSQL for this test: " << e.what());
  }
  return nullptr;
}

}  // namespace pgtest
