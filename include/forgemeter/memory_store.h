// forgemeter/memory_store.h — the lease store of one process.
//
// A deployment without a shared store runs one process, and the memory store
// elects it; tests and the demo use it to campaign many candidates in one
// process. It keeps the contract of forgemeter/lease.h exactly (the same
// conformance suite as every store), including the millisecond truncation of
// instants and TTLs, fencing terms, and `no_answer` for a call whose deadline
// has already passed or whose stop was already requested.
//
//   auto store = std::make_shared<forgemeter::MemoryStore>();
//   auto r = store->acquire("merge-gate-sweeper", owner, clock.now(), 90s,
//                           forgemeter::Deadline::after(clock, 30s));
//
// Thread-safety: every method may be called from any number of threads at
// once; each call is atomic (one mutex) and never waits on anything else, so
// it always answers before its deadline unless the deadline had passed (or the
// caller had stopped) before the call: a stop cannot find it waiting. A
// release or a change of hands wakes the candidates waiting on that name
// (LeaseChanges, forgemeter/lease.h) at once.
// Ownership: the store owns its leases; nothing is persisted.
// Errors: outcomes are values; methods throw only std::bad_alloc.
#pragma once

#include "forgemeter/export.h"

#include <cstddef>
#include <cstdint>
#include <memory>

#include "forgemeter/lease.h"

namespace forgemeter {

class FORGEMETER_API MemoryStore final : public LeaseStore, public LeaseChanges {
 public:
  MemoryStore();
  ~MemoryStore() override;
  MemoryStore(const MemoryStore&) = delete;
  MemoryStore& operator=(const MemoryStore&) = delete;

  LeaseResult acquire(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                      const Deadline& deadline) override;
  LeaseResult renew(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                    const Deadline& deadline) override;
  LeaseResult release(std::string_view name, std::string_view owner, const Deadline& deadline) override;
  LeaseState inspect(std::string_view name, const Deadline& deadline) override;
  LeaseResult resign(std::string_view name, const Deadline& deadline) override;
  std::uint64_t change_mark(std::string_view name) override;
  bool wait_for_change(std::string_view name, std::uint64_t mark, const Deadline& deadline) override;

  // Number of names ever taken (released ones keep their term, so they stay).
  std::size_t size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace forgemeter
