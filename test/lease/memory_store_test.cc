#include <doctest/doctest.h>

#include "forgemeter/memory_store.h"
#include "lease/conformance.h"

namespace {

struct MemoryFactory final : forgemeter::conformance::StoreFactory {
  std::shared_ptr<forgemeter::LeaseStore> fresh() override { return std::make_shared<forgemeter::MemoryStore>(); }
  std::shared_ptr<forgemeter::LeaseStore> peer(const std::shared_ptr<forgemeter::LeaseStore>& s) override { return s; }
};

}  // namespace

FORGEMETER_LEASE_CONFORMANCE("memory", MemoryFactory)
