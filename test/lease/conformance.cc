// The rows of the lease store conformance suite (see conformance.h) for one
// caller at a time; the races are in conformance_race.cc.
#include "lease/conformance_rows.h"

#include <atomic>
#include <stop_token>
#include <string>
#include <thread>

namespace forgemeter::conformance {
namespace {

using namespace std::chrono_literals;
using S = LeaseStatus;
using H = LeaseState::Status;  // what inspect() answers

Deadline gone() { return Deadline{&system_clock(), system_clock().steady_now() - 1ms}; }

// Checks status, holder, expiry and term of one answer (a LeaseResult, or
// inspect's LeaseState) at the caller's line.
#define EXPECT_LEASE(call, st, who, exp, trm)                                                   \
  do {                                                                                          \
    const auto r_ = (call);                                                                     \
    INFO(#call " -> " << to_string(r_.status) << " holder=" << r_.holder << " term=" << r_.term \
                      << " error=" << r_.error);                                                \
    CHECK(r_.status == (st));                                                                   \
    CHECK(r_.holder == (who));                                                                  \
    CHECK(r_.expiry == (exp));                                                                  \
    CHECK(r_.term == (trm));                                                                    \
  } while (false)

#define EXPECT_STATUS(call, st)                                          \
  do {                                                                   \
    const auto r_ = (call);                                              \
    INFO(#call " -> " << to_string(r_.status) << " error=" << r_.error); \
    CHECK(r_.status == (st));                                            \
    if (!r_.answered()) CHECK_FALSE(r_.error.empty());                   \
  } while (false)

const UtcMillis kFree{};  // the expiry a free lease reports

}  // namespace

void free_lease_is_taken(StoreFactory& f) {
  auto s = f.fresh();
  EXPECT_LEASE(s->inspect("sweep", ok()), H::free, "", kFree, 0u);
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(f.peer(s)->inspect("sweep", ok()), H::held, "a", at(t0 + 10s), 1u);
}

void held_lease_refuses_others_to_its_last_ms(StoreFactory& f) {
  auto s = f.fresh();
  auto p = f.peer(s);
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(p->acquire("sweep", "b", t0, 10s, ok()), S::refused, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(p->acquire("sweep", "b", t0 + 5s, 10s, ok()), S::refused, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(p->acquire("sweep", "b", t0 + 10s - 1ms, 10s, ok()), S::refused, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(s->inspect("sweep", ok()), H::held, "a", at(t0 + 10s), 1u);
}

void holder_reacquire_extends(StoreFactory& f) {
  auto s = f.fresh();
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(s->acquire("sweep", "a", t0 + 4s, 10s, ok()), S::granted, "a", at(t0 + 14s), 1u);
  EXPECT_LEASE(f.peer(s)->inspect("sweep", ok()), H::held, "a", at(t0 + 14s), 1u);
}

void same_instant_renewal_is_not_a_loss(StoreFactory& f) {
  auto s = f.fresh();
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(s->renew("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(s->renew("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
}

void takeover_at_expiry_inclusive(StoreFactory& f) {
  auto s = f.fresh();
  auto p = f.peer(s);
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(p->acquire("sweep", "b", t0 + 10s, 10s, ok()), S::granted, "b", at(t0 + 20s), 2u);
  EXPECT_LEASE(s->renew("sweep", "a", t0 + 10s, 10s, ok()), S::refused, "b", at(t0 + 20s), 2u);
  EXPECT_LEASE(s->acquire("sweep", "a", t0 + 10s, 10s, ok()), S::refused, "b", at(t0 + 20s), 2u);
  EXPECT_LEASE(s->inspect("sweep", ok()), H::held, "b", at(t0 + 20s), 2u);
}

void release_frees_at_once(StoreFactory& f) {
  auto s = f.fresh();
  auto p = f.peer(s);
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 1h, ok()), S::granted, "a", at(t0 + 1h), 1u);
  EXPECT_LEASE(s->release("sweep", "a", ok()), S::released, "", kFree, 1u);
  EXPECT_LEASE(p->inspect("sweep", ok()), H::free, "", kFree, 1u);
  // Long before the old expiry, and the new expiry is now+ttl, not the old one.
  EXPECT_LEASE(p->acquire("sweep", "b", t0 + 1s, 10s, ok()), S::granted, "b", at(t0 + 11s), 2u);
}

void overrun_holder_release_is_lost(StoreFactory& f) {
  auto s = f.fresh();
  auto p = f.peer(s);
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(p->acquire("sweep", "b", t0 + 11s, 10s, ok()), S::granted, "b", at(t0 + 21s), 2u);
  EXPECT_LEASE(s->release("sweep", "a", ok()), S::lost, "b", at(t0 + 21s), 2u);
  EXPECT_LEASE(p->inspect("sweep", ok()), H::held, "b", at(t0 + 21s), 2u);
  EXPECT_LEASE(p->renew("sweep", "b", t0 + 12s, 10s, ok()), S::granted, "b", at(t0 + 22s), 2u);
}

void renew_extends(StoreFactory& f) {
  auto s = f.fresh();
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(s->renew("sweep", "a", t0 + 3s, 10s, ok()), S::granted, "a", at(t0 + 13s), 1u);
  EXPECT_LEASE(s->renew("sweep", "a", t0 + 6s, 10s, ok()), S::granted, "a", at(t0 + 16s), 1u);
  EXPECT_LEASE(f.peer(s)->acquire("sweep", "b", t0 + 15s, 10s, ok()), S::refused, "a", at(t0 + 16s), 1u);
}

void renew_never_takes(StoreFactory& f) {
  auto s = f.fresh();
  auto p = f.peer(s);
  // A name never taken: renew creates nothing.
  EXPECT_LEASE(s->renew("fresh", "a", t0, 10s, ok()), S::refused, "", kFree, 0u);
  EXPECT_LEASE(p->inspect("fresh", ok()), H::free, "", kFree, 0u);
  EXPECT_LEASE(p->acquire("fresh", "b", t0, 10s, ok()), S::granted, "b", at(t0 + 10s), 1u);
  // Another's lease, live and then expired: renew takes neither.
  EXPECT_LEASE(s->renew("fresh", "a", t0 + 1s, 10s, ok()), S::refused, "b", at(t0 + 10s), 1u);
  EXPECT_LEASE(s->renew("fresh", "a", t0 + 30s, 10s, ok()), S::refused, "b", at(t0 + 10s), 1u);
  EXPECT_LEASE(p->inspect("fresh", ok()), H::held, "b", at(t0 + 10s), 1u);
}

void renew_after_release_leaves_it_free(StoreFactory& f) {
  auto s = f.fresh();
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(s->release("sweep", "a", ok()), S::released, "", kFree, 1u);
  // A renewal sent before the release that lands after it.
  EXPECT_LEASE(f.peer(s)->renew("sweep", "a", t0 + 1s, 10s, ok()), S::refused, "", kFree, 1u);
  EXPECT_LEASE(s->inspect("sweep", ok()), H::free, "", kFree, 1u);
}

void expired_unowned_lease_is_renewable(StoreFactory& f) {
  auto s = f.fresh();
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(s->inspect("sweep", ok()), H::held, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(s->renew("sweep", "a", t0 + 25s, 10s, ok()), S::granted, "a", at(t0 + 35s), 1u);
  EXPECT_LEASE(f.peer(s)->acquire("sweep", "b", t0 + 30s, 10s, ok()), S::refused, "a", at(t0 + 35s), 1u);
  // Re-acquire of one's own expired lease keeps the term too.
  EXPECT_LEASE(s->acquire("sweep", "a", t0 + 60s, 10s, ok()), S::granted, "a", at(t0 + 70s), 1u);
}

void expiry_never_moves_backward(StoreFactory& f) {
  auto s = f.fresh();
  EXPECT_LEASE(s->acquire("sweep", "a", t0 + 5s, 10s, ok()), S::granted, "a", at(t0 + 15s), 1u);
  // Older stamps, or a shorter TTL, arriving late: success, later expiry kept.
  EXPECT_LEASE(s->renew("sweep", "a", t0 + 1s, 10s, ok()), S::granted, "a", at(t0 + 15s), 1u);
  EXPECT_LEASE(s->acquire("sweep", "a", t0 + 2s, 10s, ok()), S::granted, "a", at(t0 + 15s), 1u);
  EXPECT_LEASE(s->renew("sweep", "a", t0 + 6s, 1s, ok()), S::granted, "a", at(t0 + 15s), 1u);
  EXPECT_LEASE(s->renew("sweep", "a", t0 + 6s, 10s, ok()), S::granted, "a", at(t0 + 16s), 1u);
  EXPECT_LEASE(s->inspect("sweep", ok()), H::held, "a", at(t0 + 16s), 1u);
}

void passed_deadline_changes_nothing(StoreFactory& f) {
  auto s = f.fresh();
  auto p = f.peer(s);
  EXPECT_STATUS(s->acquire("sweep", "a", t0, 10s, gone()), S::no_answer);
  EXPECT_STATUS(s->inspect("sweep", gone()), H::no_answer);
  EXPECT_LEASE(p->inspect("sweep", ok()), H::free, "", kFree, 0u);
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  EXPECT_STATUS(s->renew("sweep", "a", t0 + 5s, 10s, gone()), S::no_answer);
  EXPECT_STATUS(s->release("sweep", "a", gone()), S::no_answer);
  EXPECT_STATUS(p->acquire("sweep", "b", t0 + 20s, 10s, gone()), S::no_answer);
  EXPECT_LEASE(p->inspect("sweep", ok()), H::held, "a", at(t0 + 10s), 1u);
}

void stopped_call_changes_nothing(StoreFactory& f) {
  auto s = f.fresh();
  auto p = f.peer(s);
  std::stop_source before;
  before.request_stop();
  const Deadline stopped{&system_clock(), system_clock().steady_now() + 10s, before.get_token()};
  auto said_stopped = [](const auto& r) {  // a LeaseResult or inspect's LeaseState
    INFO(to_string(r.status) << " error=" << r.error);
    CHECK(to_string(r.status) == "no_answer");
    CHECK(r.error.find("stop") != std::string::npos);
  };
  said_stopped(s->acquire("sweep", "a", t0, 10s, stopped));
  said_stopped(s->inspect("sweep", stopped));
  EXPECT_LEASE(p->inspect("sweep", ok()), H::free, "", kFree, 0u);
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  said_stopped(s->renew("sweep", "a", t0 + 5s, 10s, stopped));
  said_stopped(s->release("sweep", "a", stopped));
  said_stopped(p->acquire("sweep", "b", t0 + 20s, 10s, stopped));
  EXPECT_LEASE(p->inspect("sweep", ok()), H::held, "a", at(t0 + 10s), 1u);
  EXPECT_STATUS(s->acquire("", "a", t0, 10s, stopped), S::invalid);  // validation still comes first

  // A stop while renewals go on: the call in flight ends within 1 s of it
  // (answered or abandoned), and every call after it is refused at once.
  std::stop_source during;
  std::atomic<bool> stop_seen{false};
  std::atomic<int> answered_after{0}, calls{0};
  SteadyTime last_return{};
  std::jthread renewer([&] {
    for (int i = 1; i < 100'000 && !stop_seen.load(); ++i) {
      const bool after = during.stop_requested();
      auto r = s->renew("sweep", "a", t0 + 1ms * i, 10s, Deadline::after(system_clock(), 10s, during.get_token()));
      ++calls;
      last_return = system_clock().steady_now();
      if (after && r.status != S::no_answer) ++answered_after;
      if (r.status == S::no_answer) stop_seen = true;
    }
  });
  while (calls.load() < 3) std::this_thread::yield();
  during.request_stop();
  const SteadyTime stop_at = system_clock().steady_now();
  renewer.join();
  CHECK(stop_seen.load());
  CHECK(answered_after.load() == 0);
  CHECK(last_return - stop_at < 1s);
  const LeaseState now = p->inspect("sweep", ok());
  CHECK(now.holder == "a");
  CHECK(now.term == 1u);
}

void release_of_free_lease_is_noop(StoreFactory& f) {
  auto s = f.fresh();
  EXPECT_LEASE(s->release("never", "a", ok()), S::not_held, "", kFree, 0u);
  EXPECT_LEASE(s->inspect("never", ok()), H::free, "", kFree, 0u);
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(s->release("sweep", "a", ok()), S::released, "", kFree, 1u);
  EXPECT_LEASE(s->release("sweep", "a", ok()), S::not_held, "", kFree, 1u);
  EXPECT_LEASE(f.peer(s)->release("sweep", "b", ok()), S::not_held, "", kFree, 1u);
  EXPECT_LEASE(s->inspect("sweep", ok()), H::free, "", kFree, 1u);
}

void leases_are_independent_by_name(StoreFactory& f) {
  auto s = f.fresh();
  auto p = f.peer(s);
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  EXPECT_LEASE(p->acquire("Sweep", "b", t0, 20s, ok()), S::granted, "b", at(t0 + 20s), 1u);  // case matters
  EXPECT_LEASE(p->acquire("sweep-2", "b", t0, 30s, ok()), S::granted, "b", at(t0 + 30s), 1u);
  EXPECT_LEASE(s->release("sweep", "a", ok()), S::released, "", kFree, 1u);
  EXPECT_LEASE(s->renew("Sweep", "a", t0, 10s, ok()), S::refused, "b", at(t0 + 20s), 1u);
  EXPECT_LEASE(p->inspect("Sweep", ok()), H::held, "b", at(t0 + 20s), 1u);
  EXPECT_LEASE(p->inspect("sweep-2", ok()), H::held, "b", at(t0 + 30s), 1u);
  EXPECT_LEASE(p->inspect("sweep", ok()), H::free, "", kFree, 1u);
}

void sub_millisecond_is_its_millisecond(StoreFactory& f) {
  auto s = f.fresh();
  auto p = f.peer(s);
  EXPECT_LEASE(s->acquire("sweep", "a", t0 + 700us, 10ms + 900us, ok()), S::granted, "a", at(t0 + 10ms), 1u);
  EXPECT_LEASE(p->acquire("sweep", "b", t0 + 9ms + 999us, 10ms, ok()), S::refused, "a", at(t0 + 10ms), 1u);
  EXPECT_LEASE(p->acquire("sweep", "b", t0 + 10ms + 300us, 1ms + 999us, ok()), S::granted, "b", at(t0 + 11ms), 2u);
  EXPECT_LEASE(p->renew("sweep", "b", t0 + 10ms + 999us, 1ms + 500us, ok()), S::granted, "b", at(t0 + 11ms), 2u);
  EXPECT_LEASE(p->renew("sweep", "b", t0 + 10ms + 999us, 2ms, ok()), S::granted, "b", at(t0 + 12ms), 2u);
  EXPECT_STATUS(s->acquire("other", "a", t0, 999us, ok()), S::invalid);
  EXPECT_STATUS(s->renew("sweep", "b", t0, 999us, ok()), S::invalid);
  EXPECT_LEASE(s->acquire("other", "a", t0 + 1ms + 1us, 1ms, ok()), S::granted, "a", at(t0 + 2ms), 1u);
}

void terms_fence_changes_of_hands(StoreFactory& f) {
  auto s = f.fresh();
  auto p = f.peer(s);
  EXPECT_LEASE(s->acquire("sweep", "a", t0, 10s, ok()), S::granted, "a", at(t0 + 10s), 1u);
  for (int i = 1; i <= 3; ++i)
    EXPECT_LEASE(s->renew("sweep", "a", t0 + 1s * i, 10s, ok()), S::granted, "a", at(t0 + 10s + 1s * i), 1u);
  EXPECT_LEASE(p->acquire("sweep", "b", t0 + 13s, 10s, ok()), S::granted, "b", at(t0 + 23s), 2u);  // takeover
  EXPECT_LEASE(p->renew("sweep", "b", t0 + 14s, 10s, ok()), S::granted, "b", at(t0 + 24s), 2u);
  EXPECT_LEASE(p->release("sweep", "b", ok()), S::released, "", kFree, 2u);
  EXPECT_LEASE(s->acquire("sweep", "a", t0 + 15s, 10s, ok()), S::granted, "a", at(t0 + 25s), 3u);  // after release
  EXPECT_LEASE(s->release("sweep", "a", ok()), S::released, "", kFree, 3u);
  EXPECT_LEASE(s->acquire("sweep", "a", t0 + 16s, 10s, ok()), S::granted, "a", at(t0 + 26s), 4u);  // same owner again
  EXPECT_LEASE(s->acquire("sweep", "a", t0 + 40s, 10s, ok()), S::granted, "a", at(t0 + 50s), 4u);  // own, expired
  EXPECT_LEASE(p->inspect("sweep", ok()), H::held, "a", at(t0 + 50s), 4u);
  EXPECT_LEASE(p->acquire("other", "b", t0, 10s, ok()), S::granted, "b", at(t0 + 10s), 1u);  // per name
}

void invalid_arguments_write_nothing(StoreFactory& f) {
  auto s = f.fresh();
  const std::string nul("ab\0cd", 5), long_name(kLeaseTextMaxBytes + 1, 'n');
  const std::string bad_texts[] = {
      "",       " ",        "\t\n",         " \r\v\f ",         nul,         long_name, "\xff",
      "a\xc3(", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "ok\xe2\x82"};
  for (const std::string& bad : bad_texts) {
    CAPTURE(bad);
    EXPECT_STATUS(s->acquire(bad, "a", t0, 10s, ok()), S::invalid);
    EXPECT_STATUS(s->renew(bad, "a", t0, 10s, ok()), S::invalid);
    EXPECT_STATUS(s->release(bad, "a", ok()), S::invalid);
    EXPECT_STATUS(s->inspect(bad, ok()), H::invalid);
    EXPECT_STATUS(s->acquire("sweep", bad, t0, 10s, ok()), S::invalid);
    EXPECT_STATUS(s->renew("sweep", bad, t0, 10s, ok()), S::invalid);
    EXPECT_STATUS(s->release("sweep", bad, ok()), S::invalid);
  }
  for (Duration ttl : {Duration::zero(), Duration(-10s), Duration(999us)}) {
    EXPECT_STATUS(s->acquire("sweep", "a", t0, ttl, ok()), S::invalid);
    EXPECT_STATUS(s->renew("sweep", "a", t0, ttl, ok()), S::invalid);
  }
  // Nothing written, not even under a truncated name (C strings, column limits).
  for (std::string_view name : {"sweep", "ab", "n"}) EXPECT_LEASE(s->inspect(name, ok()), H::free, "", kFree, 0u);
  EXPECT_LEASE(s->inspect(long_name.substr(0, kLeaseTextMaxBytes), ok()), H::free, "", kFree, 0u);
  // Invalid is checked before the deadline: the answer says what is wrong.
  EXPECT_STATUS(s->acquire("", "a", t0, 10s, gone()), S::invalid);
}

void any_utf8_text_is_kept_exactly(StoreFactory& f) {
  auto s = f.fresh();
  auto p = f.peer(s);
  std::string two_byte_200;
  for (std::size_t i = 0; i < kLeaseTextMaxBytes / 2; ++i) two_byte_200 += "\xc3\xa9";  // 100 x é = 200 bytes
  const std::string texts[] = {"it's \"quoted\"",
                               "back\\slash\\",
                               "'; DROP TABLE forgemeter_leases; --",
                               "$1 %s %n {} ${x}",
                               "pr\xc3\xbc"
                               "fung \xe2\x80\x94 \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x9a\x80",
                               "line\nbreak\ttab\x7f",
                               "  padded  ",
                               std::string(kLeaseTextMaxBytes, 'x'),
                               two_byte_200,
                               "U+2028 \xe2\x80\xa8 here"};
  std::uint64_t n = 0;
  for (const std::string& text : texts) {
    CAPTURE(text);
    ++n;
    const std::string owner = text + "/owner";
    const std::string_view o = owner.size() <= kLeaseTextMaxBytes ? std::string_view(owner) : std::string_view(text);
    EXPECT_LEASE(s->acquire(text, o, t0, 10s, ok()), S::granted, o, at(t0 + 10s), 1u);
    EXPECT_LEASE(p->inspect(text, ok()), H::held, o, at(t0 + 10s), 1u);
    EXPECT_LEASE(p->acquire(text, "someone-else", t0, 10s, ok()), S::refused, o, at(t0 + 10s), 1u);
    EXPECT_LEASE(s->renew(text, o, t0 + 1s, 10s, ok()), S::granted, o, at(t0 + 11s), 1u);
    EXPECT_LEASE(s->release(text, o, ok()), S::released, "", kFree, 1u);
  }
  CHECK(n == std::size(texts));
  // Near-identical texts stay distinct leases.
  EXPECT_LEASE(s->inspect("  padded", ok()), H::free, "", kFree, 0u);
  EXPECT_LEASE(s->inspect("back\\slash", ok()), H::free, "", kFree, 0u);
}

}  // namespace forgemeter::conformance
