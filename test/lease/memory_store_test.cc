#include <doctest/doctest.h>

#include "forgemeter/memory_store.h"
#include "lease/conformance.h"
#include "lease/exclusion.h"

namespace {

struct MemoryFactory final : forgemeter::conformance::StoreFactory {
  std::shared_ptr<forgemeter::LeaseStore> fresh() override { return std::make_shared<forgemeter::MemoryStore>(); }
  std::shared_ptr<forgemeter::LeaseStore> peer(const std::shared_ptr<forgemeter::LeaseStore>& s) override { return s; }
};

}  // namespace

FORGEMETER_LEASE_CONFORMANCE("memory", MemoryFactory)

TEST_CASE("memory store: names taken stay (their terms are kept); invalid calls and refusals add none") {
  using namespace std::chrono_literals;
  forgemeter::MemoryStore store;
  const auto dl = forgemeter::Deadline::after(forgemeter::system_clock(), 5s);
  const forgemeter::WallTime t0{std::chrono::milliseconds(1'790'000'000'000)};
  CHECK(store.size() == 0);
  CHECK(store.renew("a", "x", t0, 10s, dl).status == forgemeter::LeaseStatus::refused);
  CHECK(store.release("a", "x", dl).status == forgemeter::LeaseStatus::not_held);
  CHECK(store.acquire("", "x", t0, 10s, dl).status == forgemeter::LeaseStatus::invalid);
  CHECK(store.size() == 0);
  CHECK(store.acquire("a", "x", t0, 10s, dl).status == forgemeter::LeaseStatus::granted);
  CHECK(store.acquire("b", "x", t0, 10s, dl).status == forgemeter::LeaseStatus::granted);
  CHECK(store.release("a", "x", dl).status == forgemeter::LeaseStatus::released);
  CHECK(store.size() == 2);
}

TEST_CASE("memory store: a second campaign with the same owner is refused as another owner") {
  forgemeter::MemoryStore store;
  fmtest::same_owner_is_refused(store, store, "same-owner");
}
