// Two `forgemeter proxy --elect sweeper` replicas on one store —
// PostgreSQL (a private server) and a three-member etcd cluster, the same
// case on each — in front of one loopback forge; a client sends the lane
// `sweeper` through both alternately every 20 ms. The forge sees the lane's
// requests from one proxy at a time, under terms that never go backwards
// (each carries its term in a test-only header, --upstream-term-header);
// the other proxy answers 503 with Retry-After and GitHub's JSON naming the
// holder and its term, and sends nothing (the forge's count of the lane is
// the client's count of 200s). Each admin /metrics carries the campaign's
// lease families (leader 1 on the leader only, its term), valid for
// promtool beside the proxy's own. After SIGTERM of the leader's proxy, the
// other passes within the handover bound and the stopped one exits 0; the
// successor's hourly lines count what it sent and, as `refused`, what it
// answered itself. On etcd, the store then stops (a quorum lost): the
// successor's /healthz says the lane's lease store is silent and stays 200,
// its /metrics leader 0, until the store is back. Then --exit-on-loss (the
// lease taken over in the store: exit 75) and the usage errors of --elect.
//
// At the SIGTERM a request of the lane is on the wire (the forge holds it
// for 250 ms): the successor passes only after it ended, never before.
//
// TTL 3 s, --lease-retry 1 s, so a step-down waits up to TTL/6 = 500 ms
// for the lane's requests. The handover bound, from the held request's
// end: the stopping proxy releases; the store wakes the successor at once
// (PostgreSQL's LISTEN/NOTIFY, etcd's watch: a few ms on loopback), and
// without the wake-up its next acquire comes at most one retry later. So
// 1 s + 1 s of margin for a loaded 2-core machine and the 20 ms between
// requests. The outage is said on /healthz once the store has not answered
// for a TTL (3 s): awaited for 10 s, the store's return for 20 s.
#include <doctest/doctest.h>

#include <httplib.h>
#include <signal.h>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "core/components.h"
#include "forgemeter_bin.h"
#include "proxy_run.h"
#include "support/eventually.h"
#include "support/process.h"
#include "support/promtool.h"
#include "support/skips.h"
#include "testforge/forge.h"
#if FORGEMETER_HAS_POSTGRES
#include "support/pg_env.h"
#include "support/pg_instance.h"
#endif
#if FORGEMETER_HAS_ETCD
#include "support/etcd_cluster.h"
#endif

using namespace forgemeter;
using namespace fmtest;
using namespace std::chrono;

namespace {

constexpr auto kHandover = milliseconds(1000 + 1000);
constexpr auto kHeld = milliseconds(250);  // how long the forge holds the request on the wire

std::int64_t now_ns() { return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count(); }

struct Answer {
  int proxy = 0;
  std::int64_t sent = 0, received = 0;
  int status = 0;  // 0: no answer (the proxy stopped)
  std::string body, retry_after, refusal;
};

// Sends the lane through proxy 0, then 1, then 0 ... every 20 ms, each
// request marked with the proxy it went through (X-Test-Via: the forge sees it).
class Client {
 public:
  explicit Client(const std::vector<std::string>& urls) {
    thread_ = std::jthread([this, urls](const std::stop_token& stop) {
      std::vector<std::unique_ptr<httplib::Client>> clients;
      for (const std::string& url : urls) {
        clients.push_back(std::make_unique<httplib::Client>(url));
        clients.back()->set_connection_timeout(1s);
        clients.back()->set_read_timeout(5s);
      }
      for (int n = 0; !stop.stop_requested(); ++n) {
        const int i = n % static_cast<int>(clients.size());
        Answer a{.proxy = i, .sent = now_ns()};
        const httplib::Headers h{{"X-Forgemeter-Lane", "sweeper"}, {"X-Test-Via", std::to_string(i)}};
        if (auto r = clients[i]->Get("/repos/o/r/pulls/1", h)) {
          a.status = r->status;
          a.body = r->body;
          a.retry_after = r->get_header_value("Retry-After");
          a.refusal = r->get_header_value("X-Forgemeter-Refusal");
        }
        a.received = now_ns();
        {
          std::lock_guard lock(mu_);
          answers_.push_back(std::move(a));
        }
        std::this_thread::sleep_for(20ms);  // the client's pace, not a synchronisation
      }
    });
  }
  void stop() {
    thread_.request_stop();
    if (thread_.joinable()) thread_.join();
  }
  std::vector<Answer> answers() const {
    std::lock_guard lock(mu_);
    return answers_;
  }
  // The first answer of `proxy` with `status` sent at or after `since`.
  std::optional<Answer> first(int proxy, int status, std::int64_t since) const {
    std::lock_guard lock(mu_);
    for (const Answer& a : answers_)
      if (a.proxy == proxy && a.status == status && a.sent >= since) return a;
    return std::nullopt;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Answer> answers_;
  std::jthread thread_;
};

struct Seen {
  int via;
  std::uint64_t term;
};

// The lane's requests as the forge received them, in order: through which
// proxy, under which term (0: no term header).
std::vector<Seen> forge_saw(testforge::Forge& forge) {
  std::vector<Seen> out;
  for (const auto& r : forge.truth().requests()) {
    if (r.lane != "sweeper") continue;
    const std::string term = r.header("X-Test-Term");
    out.push_back({std::stoi(r.header("X-Test-Via")), term.empty() ? 0 : std::stoull(term)});
  }
  return out;
}

// GET on a proxy's admin listener: the status and body (0 and "" when none came).
std::pair<int, std::string> admin_get(const ProxyRun& p, const std::string& path) {
  httplib::Client c(p.admin());
  c.set_read_timeout(5s);
  if (auto r = c.Get(path)) return {r->status, r->body};
  return {0, ""};
}

// A sample of `text` (the series exactly as written, labels and all); nullopt when absent.
std::optional<double> sample(const std::string& text, const std::string& series) {
  const std::size_t at = text.find("\n" + series + " ");
  if (at == std::string::npos) return std::nullopt;
  return std::stod(text.substr(at + series.size() + 2));
}

const std::string kLeader = R"(forgemeter_lease_leader{lease="sweeper"})";
const std::string kTerm = R"(forgemeter_lease_term{lease="sweeper"})";

// The campaign on a proxy's /metrics: leading or not, and its term when given.
void campaign_said(const ProxyRun& p, bool leading, std::uint64_t term = 0) {
  const auto [status, text] = admin_get(p, "/metrics");
  REQUIRE(status == 200);
  CHECK(sample(text, kLeader) == (leading ? 1.0 : 0.0));
  if (term != 0) CHECK(sample(text, kTerm) == static_cast<double>(term));
  CHECK(text.find("# TYPE forgemeter_lease_store_request_duration_seconds histogram") != std::string::npos);
  CHECK(promtool_check_metrics(text) == "");  // the lease families beside the meter's and the proxy's
}

// The store stopped under the leading proxy `p`: /healthz says the lane's
// lease store is silent and stays 200 (liveness: every other lane serves;
// a restart would not bring the store), /metrics says leader 0 and the
// store's errors; once the store is back, leader 1 and "ok" alone again.
// How long after the stop /healthz said it, and after the start it led again.
std::pair<milliseconds, milliseconds> outage_said(const ProxyRun& p, const std::function<void()>& stop,
                                                  const std::function<void()>& start) {
  stop();
  const std::int64_t stopped = now_ns();
  std::pair<int, std::string> health;
  REQUIRE_MESSAGE(eventually(
                      [&] {
                        health = admin_get(p, "/healthz");
                        return health.second.find("no answer from the lease store") != std::string::npos;
                      },
                      seconds(10)),
                  health.second);
  const auto said = milliseconds((now_ns() - stopped) / 1'000'000);
  CHECK(health.first == 200);
  CHECK(health.second.starts_with("ok\nlease \"sweeper\": no answer from the lease store for "));
  const std::string text = admin_get(p, "/metrics").second;
  CHECK(sample(text, kLeader) == 0.0);
  double errors = 0;
  for (const char* op : {"acquire", "renew", "release", "inspect"})
    errors += sample(text, R"(forgemeter_lease_store_errors_total{lease="sweeper",op=")" + std::string(op) + "\"}")
                  .value_or(0);
  CHECK(errors > 0);
  const std::int64_t started = now_ns();
  start();
  REQUIRE_MESSAGE(eventually([&] { return sample(admin_get(p, "/metrics").second, kLeader) == 1.0; }, seconds(20)),
                  p.stderr_text());
  const auto back = milliseconds((now_ns() - started) / 1'000'000);
  CHECK(admin_get(p, "/healthz") == std::pair<int, std::string>{200, "ok\n"});
  return {said, back};
}

// Which proxy leads once one passes the lane and the other refuses it.
int first_leader(const Client& client, const std::vector<std::unique_ptr<ProxyRun>>& proxies) {
  int leader = -1;
  REQUIRE_MESSAGE(eventually(
                      [&] {
                        for (int i = 0; i < 2; ++i)
                          if (client.first(i, 200, 0) && client.first(1 - i, 503, now_ns() - 200'000'000))
                            return (leader = i) >= 0;
                        return false;
                      },
                      seconds(10)),
                  proxies[0]->stderr_text() << proxies[1]->stderr_text());
  return leader;
}

// The other proxy's refusal names the leader and its term; the term the forge saw.
std::uint64_t refusal_names_leader(const Client& client, testforge::Forge& forge, int leader) {
  const auto refused = client.first(1 - leader, 503, now_ns() - 500'000'000);
  REQUIRE(refused);
  const auto body = nlohmann::json::parse(refused->body);
  CHECK(body.at("holder") == "proxy-" + std::to_string(leader));
  CHECK(body.at("lane") == "sweeper");
  CHECK(body.at("message").get<std::string>().find("does not lead") != std::string::npos);
  CHECK(body.contains("documentation_url"));
  CHECK(refused->refusal == "lane_refused");
  CHECK(std::stoi(refused->retry_after) >= 1);
  const std::vector<Seen> before = forge_saw(forge);
  REQUIRE_FALSE(before.empty());
  CHECK(body.at("term") == before.back().term);
  return before.back().term;
}

// SIGTERM to the leader with a request of the lane held on the wire: it
// finishes, and the other passes only after it ended, within the bound.
// The handover's time from the held request's end.
milliseconds sigterm_handover(const Client& client, testforge::Forge& forge,
                              const std::vector<std::unique_ptr<ProxyRun>>& proxies, int leader) {
  const int other = 1 - leader;
  int held_status = 0;
  std::thread held([&] {
    httplib::Client c(proxies[leader]->url());
    c.set_read_timeout(10s);
    const httplib::Headers h{{"X-Forgemeter-Lane", "sweeper"}, {"X-Test-Via", std::to_string(leader)}};
    if (auto r = c.Get("/hold/drain", h)) held_status = r->status;
  });
  REQUIRE(forge.await_held("drain", 1, 5000ms));
  const std::int64_t t0 = now_ns();
  proxies[leader]->signal(SIGTERM);
  std::this_thread::sleep_for(kHeld);  // the request on the wire, not a wait for a condition
  const std::int64_t held_until = now_ns();
  forge.release("drain");
  held.join();
  CHECK(held_status == 200);  // it finished: the step-down waited for it
  std::optional<Answer> passed;
  REQUIRE_MESSAGE(eventually([&] { return (passed = client.first(other, 200, t0)).has_value(); }, seconds(10)),
                  proxies[other]->stderr_text());
  CHECK_MESSAGE(passed->received > held_until, "the successor passed while the held request was on the wire");
  const auto took = milliseconds((passed->received - held_until) / 1'000'000);
  CHECK_MESSAGE(took <= kHandover, "the handover took " << took.count() << " ms after the held request's end");
  CHECK(proxies[leader]->wait_exit(seconds(10)) == 0);
  REQUIRE(eventually([&] { return client.first(other, 200, passed->received).has_value(); }, seconds(5)));
  return took;
}

// The forge: one proxy at a time, terms never backwards, each term one
// proxy's; a refused request never reached it. What it saw.
std::vector<Seen> forge_checked(const Client& client, testforge::Forge& forge, int leader, std::uint64_t first_term) {
  const std::vector<Seen> seen = forge_saw(forge);
  std::size_t passes = 0;
  for (const Answer& a : client.answers()) passes += a.status == 200 ? 1 : 0;
  CHECK(seen.size() == passes + 1);  // and the held one
  std::map<std::uint64_t, int> via_of_term;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    CHECK_MESSAGE(seen[i].term != 0, "request " << i << " reached the forge without a term");
    if (i > 0)
      CHECK_MESSAGE(seen[i].term >= seen[i - 1].term, "term " << seen[i].term << " after " << seen[i - 1].term);
    const auto [at, fresh] = via_of_term.emplace(seen[i].term, seen[i].via);
    CHECK_MESSAGE(at->second == seen[i].via, "term " << seen[i].term << " through both proxies");
  }
  CHECK(via_of_term.size() >= 2);
  CHECK(via_of_term.at(first_term) == leader);
  CHECK(seen.back().via == 1 - leader);
  return seen;
}

// The successor's own lines, once it stopped: what it sent, and what it refused unsent.
void lines_count(const Client& client, ProxyRun& proxy, int other) {
  std::uint64_t sent_by_other = 0, refused_by_other = 0;
  for (const Answer& a : client.answers()) {
    if (a.proxy != other) continue;
    sent_by_other += a.status == 200 ? 1 : 0;
    refused_by_other += a.status == 503 ? 1 : 0;
  }
  CHECK(proxy.stop() == 0);
  const std::string lines = proxy.meter_lines();
  std::smatch m;
  REQUIRE_MESSAGE(std::regex_search(lines, m, std::regex(R"(forge HTTP: (\d+) requests)")), lines);
  CHECK(std::stoull(m[1]) == sent_by_other);
  REQUIRE_MESSAGE(std::regex_search(lines, m, std::regex(R"(forge HTTP answers: .* refused=(\d+))")), lines);
  CHECK(std::stoull(m[1]) == refused_by_other);
}

// The store both proxies campaign on; `stop` and `start`, when given, an outage of it.
struct Store {
  std::string name, uri;
  std::function<void()> stop{}, start{};
};

// The whole case on `store`.
void one_lane_at_a_time(const Store& store) {
  const std::int64_t began = now_ns();
  testforge::Forge forge;
  auto args = [&](int i) {
    return std::vector<std::string>{"--elect",
                                    "sweeper",
                                    "--store",
                                    store.uri,
                                    "--owner",
                                    "proxy-" + std::to_string(i),
                                    "--ttl",
                                    "3s",
                                    "--lease-retry",
                                    "1s",
                                    "--upstream-term-header",
                                    "X-Test-Term"};
  };
  std::vector<std::unique_ptr<ProxyRun>> proxies;
  proxies.push_back(std::make_unique<ProxyRun>(forge, args(0)));
  proxies.push_back(std::make_unique<ProxyRun>(forge, args(1)));
  Client client({proxies[0]->url(), proxies[1]->url()});

  // One leads: its requests pass; the other's are refused, naming it.
  const int leader = first_leader(client, proxies), other = 1 - leader;
  // Some time under one leader (the client's pace), then the leader's stop.
  REQUIRE(eventually([&] { return client.answers().size() >= 60; }, seconds(10)));
  const std::uint64_t first_term = refusal_names_leader(client, forge, leader);
  campaign_said(*proxies[leader], true, first_term);
  campaign_said(*proxies[other], false);
  const milliseconds took = sigterm_handover(client, forge, proxies, leader);
  client.stop();
  const std::vector<Seen> seen = forge_checked(client, forge, leader, first_term);
  campaign_said(*proxies[other], true, seen.back().term);
  std::string outage;
  if (store.stop) {
    const auto [said, back] = outage_said(*proxies[other], store.stop, store.start);
    outage = "; the store stopped: said on /healthz after " + std::to_string(said.count()) + " ms, leading " +
             std::to_string(back.count()) + " ms after it was started again";
  }
  lines_count(client, *proxies[other], other);
  MESSAGE("proxy --elect on " << store.name << ", TTL 3 s: SIGTERM handover, after the held request, " << took.count()
                              << " ms; " << seen.size() << " requests reached the forge, "
                              << client.answers().size() - (seen.size() - 1) << " answered by the proxies themselves"
                              << outage << "; " << (now_ns() - began) / 1'000'000 << " ms in all");
}

}  // namespace

#if FORGEMETER_HAS_POSTGRES
TEST_CASE("proxy --elect on PostgreSQL: one proxy at a time sends an elected lane, the other answers 503") {
  if (PrivatePg::bin_dir().empty()) {
    skipped("no PostgreSQL server binaries: the proxy --elect test did not run");
    return;
  }
  PrivatePg pg;
  one_lane_at_a_time({"PostgreSQL", pg.conninfo()});
}
#endif

#if FORGEMETER_HAS_ETCD
TEST_CASE("proxy --elect on etcd: one proxy at a time; a store without quorum is said on /healthz, still 200") {
  if (!EtcdCluster::available()) {
    skipped("no etcd binary on PATH (Debian package etcd-server): the etcd proxy --elect test did not run");
    return;
  }
  EtcdCluster cluster(3);
  std::vector<int> lost;  // a quorum, the store stopped as a cluster loses it
  one_lane_at_a_time({"etcd", cluster.uri("/proxy/"), [&] { lost = cluster.kill_quorum(); },
                      [&] {
                        for (const int i : lost) cluster.restart(i);
                      }});
}
#endif

#if FORGEMETER_HAS_POSTGRES
TEST_CASE("proxy --elect --exit-on-loss: a term taken over in the store stops the proxy with status 75") {
  if (PrivatePg::bin_dir().empty()) {
    skipped("no PostgreSQL server binaries: the proxy --exit-on-loss test did not run");
    return;
  }
  PrivatePg pg;
  testforge::Forge forge;
  ProxyRun proxy(
      forge, {"--elect", "sweeper", "--store", pg.conninfo(), "--owner", "proxy-0", "--ttl", "2s", "--exit-on-loss"});
  httplib::Client c(proxy.url());
  const httplib::Headers lane{{"X-Forgemeter-Lane", "sweeper"}};
  REQUIRE(eventually([&] {
    auto r = c.Get("/repos/o/r/pulls/1", lane);
    return r && r->status == 200;
  }));
  // Another owner takes the lease behind the proxy's back: its next renewal is refused.
  PgSession db(pg.conninfo());
  REQUIRE(db.exec("UPDATE forgemeter_leases SET owner = 'intruder', term = term + 1 WHERE name = 'sweeper'"));
  CHECK(proxy.wait_exit(seconds(10)) == 75);
  CHECK(proxy.stderr_text().find("--exit-on-loss") != std::string::npos);
}
#endif

TEST_CASE("proxy --elect: a lane that cannot be elected, or the campaign's options without --elect, are usage errors") {
  const std::vector<std::string> base{forgemeter_bin(),     "proxy",    "--upstream",
                                      "http://127.0.0.1:9", "--listen", "127.0.0.1:0"};
  auto run = [&](std::vector<std::string> more) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), more.begin(), more.end());
    return run_process(argv);
  };
  auto other = run({"--elect", "other", "--store", "memory:"});
  CHECK(other.exit_code == 2);
  auto outside = run({"--elect", "sweeper", "--lanes", "a,b", "--store", "memory:"});
  CHECK(outside.exit_code == 2);
  CHECK(outside.err.find("not among --lanes") != std::string::npos);
  auto alone = run({"--store", "memory:"});
  CHECK(alone.exit_code == 2);
  CHECK(alone.err.find("go with --elect") != std::string::npos);
  auto twice = run({"--elect", "sweeper", "--elect", "sweeper", "--store", "memory:"});
  CHECK(twice.exit_code == 2);
}
