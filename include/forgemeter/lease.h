// forgemeter/lease.h — the lease store contract.
//
// A lease is a name one owner holds until an expiry. It elects ONE replica to
// run a periodic, idempotent loop whose cost scales with the replica count.
// FOR LOAD, NOT FOR EXCLUSION: clocks, store round trips and a stalled holder
// bound how exclusive a lease is — a holder that stalls past its TTL overlaps
// its successor for the length of the stall. Work that must never run twice
// checks the fencing `term` (it increases on every change of hands) where it
// writes, or keeps a claim on the item itself.
//
// Every store keeps the contract written at LeaseStore below (one conformance
// suite, test/lease/conformance.h, checks them all alike): instants are the
// caller's, kept to the millisecond; a term is never reused; `no_answer` means
// the answer did not arrive, NOT that nothing happened.
//
// Thread-safety: every store may be called from many threads at once.
// Errors: outcomes are values (LeaseResult; inspect's LeaseState); store
// methods never throw except std::bad_alloc. Constructors throw
// std::invalid_argument on unusable options.
#pragma once

#include "forgemeter/export.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "forgemeter/clock.h"

namespace forgemeter {

inline constexpr std::size_t kLeaseTextMaxBytes = 200;  // longest name or owner

// What acquire, renew and release answered; each call answers only its own
// (at LeaseStore below), no_answer and invalid being every call's.
enum class LeaseStatus : std::uint8_t {
  granted,    // acquire took or extended the lease; renew extended it
  refused,    // acquire: another owner holds it; renew: the caller does not hold it
  released,   // release freed the caller's lease
  not_held,   // release of a lease nobody holds: nothing to do
  lost,       // release: another owner holds it; nothing changed
  no_answer,  // the store did not answer by the deadline (the write may have landed)
  invalid,    // an argument broke the contract; nothing written
};

// "granted", "refused", ... (the enumerator's name).
FORGEMETER_API std::string_view to_string(LeaseStatus s) noexcept;

// What a store call answered. `holder`, `expiry` and `term` describe the lease
// as the store left it; they are meaningful for every status but no_answer
// and invalid. A free lease reports holder "" and expiry = the epoch
// (UtcMillis{}).
struct FORGEMETER_API LeaseResult {
  LeaseStatus status = LeaseStatus::no_answer;
  std::string holder{};
  UtcMillis expiry{};
  // The first owner of a name gets term 1; it increases by one each time the
  // lease passes to an owner that did not hold it (a fresh take, a takeover
  // after expiry, a take after release — by anyone, the previous holder too);
  // the holder's acquire/renew keep it, and so does release, so a term is
  // never reused. A name never taken has term 0. A change of hands that would
  // need a term past the largest the store keeps (2^64 − 1; PostgreSQL
  // 2^63 − 1: only a record written by hand gets there) is `refused`, with
  // `error` saying so: the lease cannot change hands again.
  std::uint64_t term = 0;
  std::string error{};  // for no_answer, invalid and such a refusal: what went wrong, for a log line
  // renew answered `granted` for a term whose holder was asked to step down
  // (LeaseStore::resign): the holder ends its term as for a stop and releases.
  // False on every other answer.
  bool resign_requested = false;
  // The store server's own clock when it ran the call, for a clock check
  // only (the contract's instants are the caller's): PostgreSQL's renew sets
  // it (now()); the epoch, UtcMillis{}, when the store read none.
  UtcMillis store_now{};

  bool answered() const { return status != LeaseStatus::no_answer && status != LeaseStatus::invalid; }
};

// What inspect() answered: the lease as the store holds it — by whom, until
// when, in which term. `holder`, `expiry` and `term` are as at LeaseResult
// (free: holder "", expiry the epoch, the term the last one, kept).
struct FORGEMETER_API LeaseState {
  enum class Status : std::uint8_t {
    held,       // someone holds it, even past its expiry: compare `expiry` with your clock
    free,       // nobody holds it: never taken, or released
    no_answer,  // the store did not answer by the deadline
    invalid,    // the name broke the contract; nothing read
  };
  Status status = Status::no_answer;
  std::string holder{};
  UtcMillis expiry{};
  std::uint64_t term = 0;
  std::string error{};  // for no_answer and invalid: what went wrong, for a log line

  bool answered() const { return status == Status::held || status == Status::free; }
};

// "held", "free", "no_answer", "invalid" (the enumerator's name).
FORGEMETER_API std::string_view to_string(LeaseState::Status s) noexcept;

// The contract of every store:
//   * Instants are the caller's clock (`now`, UTC) and are kept to the
//     millisecond: `now` and `ttl` are truncated (floor) to whole milliseconds,
//     and the expiry stamped is floor(now) + floor(ttl).
//   * Neither acquire nor renew moves an expiry backward: the caller's own
//     lease keeps the later of the stored and the new expiry (a late, older
//     stamp is still `granted`, and a renewal at the stored instant is a
//     success). A change of hands stamps now+ttl.
//   * A call whose deadline has already passed, or whose Deadline::stop was
//     already requested, answers `no_answer` and changes nothing. A stop
//     requested while a call waits ends it promptly (well within a round
//     trip of the store's, never at the deadline): `no_answer` with an error
//     saying it was stopped, and what the call had sent is abandoned
//     (PostgreSQL: ended on the server). `no_answer` in general means the
//     answer did not arrive by the deadline or the stop — NOT that nothing
//     happened: the write may have landed.
//   * Names and owners: non-blank (not only ASCII whitespace) valid UTF-8 of
//     at most 200 bytes with no NUL byte; anything else (quotes, backslashes,
//     newlines, any language) is kept byte for byte. TTL >= 1 ms. Else
//     `invalid` with the reason in `error`, nothing written; validation comes
//     before the deadline check.
class FORGEMETER_API LeaseStore {
 public:
  virtual ~LeaseStore() = default;

  // Takes the lease until now+ttl when it is free, expired at `now` (expiry
  // <= now: expiry is inclusive), or already the caller's; else `refused`,
  // with the holder and its expiry (also, with `error`, a change of hands
  // whose term cannot increase: LeaseResult::term).
  // Answers: granted, refused, no_answer, invalid.
  virtual LeaseResult acquire(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                              const Deadline& deadline) = 0;
  // Extends only the caller's own lease (even one past its expiry that nobody
  // took); never creates or takes one: `refused` otherwise.
  // Answers: granted, refused, no_answer, invalid.
  virtual LeaseResult renew(std::string_view name, std::string_view owner, WallTime now, Duration ttl,
                            const Deadline& deadline) = 0;
  // Frees the caller's lease (`released`); a no-op on a free lease
  // (`not_held`); answers `lost`, changing nothing, when another owner holds
  // it. The caller's lease past its expiry is still the caller's.
  // Answers: released, not_held, lost, no_answer, invalid.
  virtual LeaseResult release(std::string_view name, std::string_view owner, const Deadline& deadline) = 0;
  // For operators: who holds the lease, until when, in which term; changes
  // nothing. Answers: held, free, no_answer, invalid.
  virtual LeaseState inspect(std::string_view name, const Deadline& deadline) = 0;
  // For operators: asks the holder of `name` to step down. The request is
  // kept beside the lease for the current term only (a change of hands
  // forgets it); the holder's next renewal in that term answers `granted`
  // with resign_requested, and a store with LeaseChanges wakes it at once.
  // `granted`: asked, with the holder, expiry and term; `not_held`: the lease
  // is free, nothing asked. Other names are untouched. The default answers
  // `invalid` ("this store takes no resign requests"); every store of the
  // library overrides it. Answers: granted, not_held, no_answer, invalid.
  virtual LeaseResult resign(std::string_view name, const Deadline& deadline);
};

// An optional face of a store: it hears of a lease's changes — a release, a
// change of hands — and wakes the candidates waiting on that name, so a
// successor need not wait for its next poll. campaign() uses it when the
// store has it (MemoryStore, PostgresStore: LISTEN/NOTIFY, EtcdStore: a
// watch). A wake-up only wakes: the candidate's acquire still decides. It may
// come for nothing and it may be lost (a listener reconnecting): a campaign
// then takes over at its next poll, as without it (docs/leases.md).
class FORGEMETER_API LeaseChanges {
 public:
  virtual ~LeaseChanges() = default;
  // How many changes of `name` the store has heard of so far; no round trip.
  // Taken BEFORE the call whose answer the wait follows, so that a change
  // landing in between is not missed.
  virtual std::uint64_t change_mark(std::string_view name) = 0;
  // Blocks until the store hears of a change of `name` past `mark` (true), or
  // until `deadline` passes or its stop is requested (false), on the
  // deadline's clock.
  virtual bool wait_for_change(std::string_view name, std::uint64_t mark, const Deadline& deadline) = 0;
};

// Why the arguments break the contract, or nullopt when they do not. Every
// store calls these first; exposed so callers can validate early.
FORGEMETER_API std::optional<std::string> check_lease_args(std::string_view name, std::string_view owner,
                                                           Duration ttl);  // acquire, renew
FORGEMETER_API std::optional<std::string> check_lease_args(std::string_view name,
                                                           std::string_view owner);  // release
FORGEMETER_API std::optional<std::string> check_lease_name(std::string_view name);   // inspect

// The stores' millisecond truncation of an instant and of a TTL (floor).
FORGEMETER_API UtcMillis lease_stamp(WallTime now) noexcept;
FORGEMETER_API std::chrono::milliseconds lease_ttl(Duration ttl) noexcept;

}  // namespace forgemeter
