// A holder is a campaign, not a name: two campaigns given one owner name are
// two holders (each writes its name tagged with "#" and 12 hex digits), so
// the second is refused and told the owner is in use; and a term that cannot
// increase is refused and reported, never reused. Deterministic on a
// ManualClock, TTL 90 s (retry 30 s).
#include <doctest/doctest.h>

#include <limits>
#include <regex>

#include "lease/campaign_fixture.h"
#include "lease/event_text.h"
#include "lease/transition.h"

namespace forgemeter::testing {
namespace {

constexpr std::uint64_t kMaxTerm = std::numeric_limits<std::uint64_t>::max();

// Refuses every acquire as a store does a lease at the largest term.
class Exhausted final : public LeaseStore {
 public:
  LeaseResult acquire(std::string_view, std::string_view, WallTime, Duration, const Deadline&) override {
    LeaseResult r;
    r.status = LeaseStatus::refused;
    r.term = kMaxTerm;
    r.holder = "old";  // expired long ago: takeable but for its term
    r.error = lease_detail::term_exhausted_error(kMaxTerm);
    return r;
  }
  LeaseResult renew(std::string_view, std::string_view, WallTime, Duration, const Deadline&) override {
    return {LeaseStatus::refused};
  }
  LeaseResult release(std::string_view, std::string_view, const Deadline&) override { return {LeaseStatus::not_held}; }
  LeaseState inspect(std::string_view, const Deadline&) override { return {}; }
};

}  // namespace

TEST_CASE("campaign: a second campaign with the same owner is refused, told once, and takes over after a stop") {
  Sim sim;
  auto a = sim.candidate("web-1");
  a->start();
  REQUIRE(a->await_terms(1));
  const std::string first = sim.inspect().holder;
  CHECK(std::regex_match(first, std::regex("web-1#[0-9a-f]{12}")));
  CHECK(holder_name(first) == "web-1");

  auto b = sim.candidate("web-1");
  b->start();
  sim.run_for(5 * kTtl, 2);
  CHECK(b->terms().empty());  // refused as any other owner: never both at once
  CHECK(sim.ledger.max_serving() == 1);
  CHECK(b->store().count(Op::acquire, LeaseStatus::refused) >= 14);
  REQUIRE(b->await_events(Kind::owner_in_use, 1));
  CHECK(b->texts(Kind::owner_in_use) ==
        std::vector<std::string>{"lease \"merge-gate-sweeper\": web-1 is refused: owner \"web-1\" is already in use "
                                 "by another campaign (" +
                                 first + " holds term 1); give each candidate an owner of its own"});
  CHECK(a->count(Kind::owner_in_use) == 0);

  a->stop();
  REQUIRE(a->await_finished());
  REQUIRE(sim.step_until(
      1, [&] { return !b->terms().empty(); }, kThird));
  const std::string second = sim.inspect().holder;
  CHECK(second != first);
  CHECK(holder_name(second) == "web-1");
  CHECK(b->terms().at(0).number == 2);  // a change of hands: a new term
  CHECK(sim.ledger.max_serving() == 1);
}

TEST_CASE("campaign: a term that cannot increase is refused and reported once, never served") {
  Sim sim;
  Candidate c("host-c", std::make_shared<Exhausted>(), sim.clock, Sim::spec());
  c.start();
  sim.run_for(kTtl, 1);
  CHECK(c.store().count(Op::acquire) == 4);  // at 0, 30, 60 and 90 s: every retry, not at the past expiry
  CHECK(c.terms().empty());
  REQUIRE(c.await_events(Kind::term_exhausted, 1));  // events go out on the campaign's event thread
  CHECK(c.texts(Kind::term_exhausted) == std::vector<std::string>{"lease \"merge-gate-sweeper\": host-c is refused: " +
                                                                  lease_detail::term_exhausted_error(kMaxTerm)});
  CHECK(c.count(Kind::store_unreachable) == 0);
}

TEST_CASE("campaign owner: the tag fits the owner limit, and holders show their name") {
  CampaignSpec s = Sim::spec();
  s.owner = std::string(kCampaignOwnerMaxBytes, 'o');
  CHECK_FALSE(check_campaign_spec(s));
  s.owner += 'o';
  CHECK(check_campaign_spec(s) == "campaign: owner is 188 bytes, more than 187 (the store gets it with a 13-byte tag)");
  CHECK(make_owner_id().size() <= kCampaignOwnerMaxBytes);
  CHECK(make_owner_id().find('#') == std::string::npos);

  CHECK(holder_name("web-1#3f9a2c01b2d4") == "web-1");
  CHECK(holder_name("a#b#3f9a2c01b2d4") == "a#b");
  CHECK(holder_name("#3f9a2c01b2d4") == "#3f9a2c01b2d4");            // no name before it: not a tag
  CHECK(holder_name("web-1#3F9A2C01B2D4") == "web-1#3F9A2C01B2D4");  // not the campaign's spelling
  CHECK(holder_name("web-1#3f9a2c01b2d") == "web-1#3f9a2c01b2d");
  CHECK(holder_name("intruder") == "intruder");

  // Another name is shown as its name; this campaign's own name with its tag.
  lease_detail::EventText text("x", "web-1");
  CHECK(text.lost(3, "web-2#3f9a2c01b2d4").text ==
        "lease \"x\": web-1 lost the lease to web-2 (term 3 ended: renewal refused)");
  CHECK(text.lost(3, "web-1#3f9a2c01b2d4").text ==
        "lease \"x\": web-1 lost the lease to web-1#3f9a2c01b2d4 (term 3 ended: renewal refused)");
}

TEST_CASE("lease rules: a change of hands at the largest term is refused with the reason; the holder keeps it") {
  const UtcMillis at{std::chrono::milliseconds(1'790'000'000'000)};
  lease_detail::LeaseRecord r{"old", at, kMaxTerm};
  lease_detail::Step s = lease_detail::acquire_step(r, "new", at, at + 10s);  // expired at `at`
  CHECK(s.status == LeaseStatus::refused);
  CHECK_FALSE(s.write);
  CHECK(s.error == lease_detail::term_exhausted_error(kMaxTerm));
  CHECK(r == lease_detail::LeaseRecord{"old", at, kMaxTerm});
  s = lease_detail::acquire_step(r, "old", at, at + 10s);  // the holder's own: no change of hands
  CHECK(s.status == LeaseStatus::granted);
  CHECK(r.term == kMaxTerm);
  r.holder.clear();  // released
  CHECK(lease_detail::acquire_step(r, "old", at, at + 10s).status == LeaseStatus::refused);
  r.term = kMaxTerm - 1;
  CHECK(lease_detail::acquire_step(r, "new", at, at + 10s).status == LeaseStatus::granted);
  CHECK(r.term == kMaxTerm);
}

}  // namespace forgemeter::testing
