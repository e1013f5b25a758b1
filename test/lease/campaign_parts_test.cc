// The campaign's parts: spec validation, event texts, durations, owner ids,
// the lease-name registry.
#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <stdexcept>
#include <thread>

#include "forgemeter/campaign.h"
#include "forgemeter/memory_store.h"
#include "lease/event_text.h"
#include "lease/faulty_store.h"

namespace forgemeter::testing {
namespace {

using namespace std::chrono_literals;

CampaignSpec good() {
  CampaignSpec s;
  s.name = "merge-gate-sweeper";
  s.owner = "host-a";
  s.ttl = 90s;
  return s;
}

}  // namespace

TEST_CASE("campaign spec: unusable specs are rejected before anything runs") {
  FaultyStore store(std::make_shared<MemoryStore>());
  std::stop_source stop;
  stop.request_stop();  // a usable spec would return at once
  auto work = [](Term&) {};
  struct Bad {
    const char* what;
    std::function<void(CampaignSpec&)> edit;
    const char* says;
  };
  const Bad bad[] = {
      {"empty name", [](CampaignSpec& s) { s.name.clear(); }, "lease name is empty"},
      {"blank name", [](CampaignSpec& s) { s.name = " \t"; }, "blank"},
      {"empty owner", [](CampaignSpec& s) { s.owner.clear(); }, "lease owner is empty"},
      {"NUL in owner", [](CampaignSpec& s) { s.owner = std::string("a\0b", 3); }, "NUL"},
      {"TTL zero", [](CampaignSpec& s) { s.ttl = 0s; }, "under 3ms"},
      {"TTL 2.9 ms is 2 ms", [](CampaignSpec& s) { s.ttl = 2900us; }, "under 3ms"},
      {"TTL over a year", [](CampaignSpec& s) { s.ttl = std::chrono::days(400); }, "over 366 days"},
      {"retry zero", [](CampaignSpec& s) { s.retry = 0s; }, "retry 0s must be above zero"},
      {"retry negative", [](CampaignSpec& s) { s.retry = -1s; }, "must be above zero"},
      {"retry equal to TTL", [](CampaignSpec& s) { s.retry = 90s; }, "under the TTL 1m30s"},
      {"retry above TTL", [](CampaignSpec& s) { s.retry = 2min; }, "under the TTL"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.what);
    CampaignSpec s = good();
    b.edit(s);
    const std::string error = check_campaign_spec(s).value_or("");
    CHECK(error.find(b.says) != std::string::npos);
    CHECK_THROWS_AS(campaign(store, s, stop.get_token(), work), std::invalid_argument);
  }
  CHECK_THROWS_WITH_AS(campaign(store, good(), stop.get_token(), {}), "campaign: no work given", std::invalid_argument);
  CHECK(store.calls().empty());
  // Usable: the default retry, the smallest TTL, a retry just under the TTL.
  for (auto edit :
       {+[](CampaignSpec&) {}, +[](CampaignSpec& s) { s.ttl = 3ms; }, +[](CampaignSpec& s) { s.retry = 90s - 1ns; }}) {
    CampaignSpec s = good();
    edit(s);
    CHECK_FALSE(check_campaign_spec(s).has_value());
    CHECK(campaign(store, s, stop.get_token(), work) == CampaignEnd::stopped);
  }
}

TEST_CASE("campaign events: stable texts, name, owner and errors escaped onto one line") {
  using lease_detail::EventText;
  const EventText t("merge-gate-sweeper", "host-3f9a2c");
  CHECK(t.elected(7, 3min).text == "lease \"merge-gate-sweeper\": host-3f9a2c elected (term 7, TTL 3m)");
  CHECK(t.elected(7, 3min).kind == LeaseEvent::Kind::elected);
  CHECK(t.elected(7, 3min).term == 7);
  CHECK(t.renewed_late(7, 2).text ==
        "lease \"merge-gate-sweeper\": host-3f9a2c renewed late (term 7, after 2 unanswered renewals)");
  CHECK(t.lost(7, "host-77b0e1").text ==
        "lease \"merge-gate-sweeper\": host-3f9a2c lost the lease to host-77b0e1 (term 7 ended: renewal refused)");
  CHECK(t.lost(7, "").text ==
        "lease \"merge-gate-sweeper\": host-3f9a2c lost the lease (term 7 ended: renewal refused)");
  CHECK(t.stepped_down(7, 150s).text ==
        "lease \"merge-gate-sweeper\": host-3f9a2c stepped down (term 7 ended: no renewal proven within 2m30s of its "
        "sending)");
  CHECK(t.released(7, false).text == "lease \"merge-gate-sweeper\": host-3f9a2c released the lease (term 7)");
  CHECK(t.unreachable("connection refused").text ==
        "lease \"merge-gate-sweeper\": host-3f9a2c cannot reach the lease store (connection refused)");
  CHECK(t.reachable(42s).text ==
        "lease \"merge-gate-sweeper\": host-3f9a2c reaches the lease store again (no answer for 42s)");

  const EventText evil(
      "a\"b\\c\nd\xc2\x85"
      "e\xe2\x80\xa8"
      "f",
      "own\ter\r");
  CHECK(evil.unreachable("FATAL:  terminating\nconnection").text ==
        "lease \"a\\\"b\\\\c\\x0ad\\xc2\\x85e\\xe2\\x80\\xa8f\": own\\x09er\\x0d cannot reach the lease store "
        "(FATAL:  terminating\\x0aconnection)");
  CHECK(lease_detail::escape_for_line("pr\xc3\xbc"
                                      "fung \xe6\x97\xa5") ==
        "pr\xc3\xbc"
        "fung \xe6\x97\xa5");
}

TEST_CASE("campaign events: kind and end names") {
  CHECK(to_string(LeaseEvent::Kind::store_unreachable) == "store_unreachable");
  CHECK(to_string(CampaignEnd::term_ended) == "term_ended");
  CHECK(to_string(LeaseStatus::no_answer) == "no_answer");
}

TEST_CASE("owner id: host name, a dash, 12 random hex digits") {
  const std::string a = make_owner_id(), b = make_owner_id();
  CHECK(std::regex_match(a, std::regex("[A-Za-z0-9._-]+-[0-9a-f]{12}")));
  CHECK(a != b);
  CHECK(a.substr(0, a.size() - 12) == b.substr(0, b.size() - 12));
  CHECK_FALSE(check_lease_args("x", a).has_value());
}

TEST_CASE("lease names: each name claimed once per registry") {
  LeaseNames names;
  const std::string_view sweeper = names.claim("merge-gate-sweeper");
  CHECK(sweeper == "merge-gate-sweeper");
  CHECK(names.claimed("merge-gate-sweeper"));
  CHECK_FALSE(names.claimed("board-sync"));
  CHECK_THROWS_AS(names.claim("merge-gate-sweeper"), std::logic_error);
  CHECK_THROWS_AS(names.claim(""), std::invalid_argument);
  CHECK_THROWS_AS(names.claim(std::string(201, 'x')), std::invalid_argument);
  CHECK(names.claim("board-sync") == "board-sync");
  CHECK(sweeper == "merge-gate-sweeper");  // views stay valid as names are added
  LeaseNames other;
  CHECK(other.claim("merge-gate-sweeper") == "merge-gate-sweeper");  // registries are independent
  CHECK(&LeaseNames::process() == &LeaseNames::process());
}

TEST_CASE("lease names: racing claims of one name, exactly one wins") {
  LeaseNames names;
  std::atomic<int> won{0}, refused{0};
  {
    std::vector<std::jthread> ts;
    for (int i = 0; i < 8; ++i)
      ts.emplace_back([&] {
        try {
          names.claim("race");
          ++won;
        } catch (const std::logic_error&) {
          ++refused;
        }
      });
  }
  CHECK(won == 1);
  CHECK(refused == 7);
}

}  // namespace forgemeter::testing
