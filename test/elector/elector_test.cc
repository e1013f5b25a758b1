// The elector in one process on the memory store, through a real Server on
// loopback: each answer's promise, long polls, the admin listener's bearer,
// the stop that waits out the longest promise before it releases, a
// handover between two electors, and --exit-on-loss's loss.
#include <doctest/doctest.h>

#include <curl/curl.h>

#include <future>
#include <nlohmann/json.hpp>

#include "elector/elector.h"
#include "elector/routes.h"
#include "forgemeter/memory_store.h"
#include "serve/serve_client.h"
#include "serve/server.h"
#include "support/curl_body.h"
#include "support/eventually.h"
#include "support/promtool.h"

using namespace forgemeter;
using namespace std::chrono;
using fmtest::eventually;
using fmtest::fetch;

namespace {

elector::ElectorOptions options(std::string owner, std::vector<std::string> names = {"sweeper"}) {
  elector::ElectorOptions o;
  o.names = std::move(names);
  o.owner = std::move(owner);
  o.ttl = seconds(3);
  o.answer_validity = milliseconds(400);
  return o;
}

// An elector and its two listeners, started.
struct Served {
  Served(MemoryStore& store, elector::ElectorOptions o)
      : elector(store, std::move(o)),
        pub(serve::ServerOptions{.listen = {"127.0.0.1:0"}}, elector::public_routes(elector)),
        admin(serve::ServerOptions{.listen = {"127.0.0.1:0"}}, elector::admin_routes(elector, "s3cret")) {
    REQUIRE_FALSE(pub.start());
    REQUIRE_FALSE(admin.start());
    elector.start();
  }
  ~Served() {
    elector.stop();
    elector.end_clients();
  }
  std::string url(const std::string& path) { return "http://" + pub.addresses().at(0) + path; }
  std::string admin_url(const std::string& path) { return "http://" + admin.addresses().at(0) + path; }
  nlohmann::json get(const std::string& path = "/leases/sweeper") {
    return nlohmann::json::parse(fetch(url(path)).body);
  }
  bool leads() { return get()["leader"].get<bool>(); }

  elector::Elector elector;
  serve::Server pub, admin;
};

Deadline within_a_second() {
  return Deadline{&forgemeter::system_clock(), forgemeter::system_clock().steady_now() + seconds(1)};
}
LeaseState inspect(MemoryStore& store) { return store.inspect("sweeper", within_a_second()); }

// A request with one header of ours (the bearer), with libcurl.
fmtest::Fetched fetch_with(const std::string& url, const std::string& method, const std::string& header) {
  fmtest::Fetched out;
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
  curl_slist* headers = curl_slist_append(nullptr, header.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, fmtest::append_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &out.body);
  out.curl_code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return out;
}

}  // namespace

TEST_CASE("an answer: leader with a promise of at most the cap, counted from the arrival; 0 when not leader") {
  MemoryStore store;
  Served a(store, options("a"));
  REQUIRE(eventually([&] { return a.leads(); }));
  const auto j = a.get();
  CHECK(j["name"] == "sweeper");
  CHECK(j["holder"] == "a");
  CHECK(j["term"] == 1);
  CHECK(j["valid_for_ms"].get<int>() > 0);
  CHECK(j["valid_for_ms"].get<int>() <= 400);
  CHECK(j["id"] == "1.1");
  CHECK(j["expiry"].get<std::string>().ends_with("Z"));

  Served b(store, options("b"));
  const auto other = b.get();
  CHECK(other["leader"] == false);
  CHECK(other["valid_for_ms"] == 0);
  REQUIRE(eventually([&] { return b.get()["holder"] == "a"; }));        // b's observer saw a
  CHECK(nlohmann::json::parse(fetch(b.url("/")).body)["name"] == "a");  // the compatibility shape
  CHECK(fetch(b.url("/leases/other")).status == 404);
  CHECK(fetch(b.url("/leases/sweeper/resign"), "POST").status == 404);  // never on the public listener
  CHECK(fetch(b.url("/leases/sweeper"), "POST").status == 405);
}

TEST_CASE("a stop stops answering leader, waits out the longest promise, then releases") {
  MemoryStore store;
  Served a(store, options("a"));
  REQUIRE(eventually([&] { return a.leads(); }));
  const auto promised = steady_clock::now();
  const int valid = a.get()["valid_for_ms"].get<int>();
  REQUIRE(valid > 300);
  auto stopping = std::async(std::launch::async, [&] { a.elector.stop(); });
  REQUIRE(eventually([&] { return a.get()["leader"] == false; }, seconds(1)));  // at once, the stop still waiting
  CHECK(inspect(store).status == LeaseState::Status::held);                     // not released while a promise runs
  stopping.get();
  CHECK(steady_clock::now() >= promised + milliseconds(valid));
  CHECK(inspect(store).status == LeaseState::Status::free);
}

TEST_CASE("a long poll answers at the next change, at the wait's end, or at once for an old id") {
  MemoryStore store;
  Served a(store, options("a"));
  REQUIRE(eventually([&] { return a.leads(); }));
  const std::string id = a.get()["id"];
  const auto old = nlohmann::json::parse(fetch(a.url("/leases/sweeper?wait=5s&after=0.0")).body);
  CHECK(old["leader"] == true);  // another id: at once

  const auto t0 = steady_clock::now();
  const auto waited = nlohmann::json::parse(fetch(a.url("/leases/sweeper?wait=300ms&after=" + id)).body);
  CHECK(steady_clock::now() - t0 >= milliseconds(300));
  CHECK(waited["leader"] == true);
  CHECK(waited["valid_for_ms"].get<int>() > 300);  // counted from its sending: the wait is in it
  CHECK(waited["valid_for_ms"].get<int>() <= 300 + 400 + 50);

  auto parked = std::async(std::launch::async, [&] { return fetch(a.url("/leases/sweeper?wait=10s&after=" + id)); });
  CHECK(parked.wait_for(milliseconds(200)) == std::future_status::timeout);
  a.elector.resign("sweeper");
  const auto changed = nlohmann::json::parse(parked.get().body);
  CHECK(changed["leader"] == false);
  CHECK(changed["id"] != id);
  CHECK(fetch(a.url("/leases/sweeper?wait=forever")).status == 400);
}

TEST_CASE("the admin listener: a bearer token or nothing; a resign moves leadership after the promises") {
  MemoryStore store;
  Served a(store, options("a"));
  Served b(store, options("b"));
  REQUIRE(eventually([&] { return a.leads() || b.leads(); }));
  Served& leader = a.leads() ? a : b;
  Served& other = a.leads() ? b : a;
  const auto none = fetch(leader.admin_url("/leases/sweeper/resign"), "POST");
  CHECK(none.status == 401);
  CHECK(none.headers.find("WWW-Authenticate: Bearer") != std::string::npos);
  CHECK(fetch_with(leader.admin_url("/leases/sweeper/resign"), "POST", "Authorization: Bearer s3cre7").status == 403);
  CHECK(fetch_with(other.admin_url("/leases/sweeper/resign"), "POST", "Authorization: Bearer s3cret").status == 409);
  const auto last = leader.get();
  const auto asked = steady_clock::now();
  const auto r = fetch_with(leader.admin_url("/leases/sweeper/resign"), "POST", "Authorization: Bearer s3cret");
  CHECK(r.status == 202);
  REQUIRE(eventually([&] { return other.leads(); }, seconds(5)));
  CHECK(steady_clock::now() >= asked + milliseconds(last["valid_for_ms"].get<int>()) - milliseconds(50));
  CHECK(leader.get()["leader"] == false);
  CHECK(leader.get()["holder"] == other.get()["holder"]);
}

TEST_CASE("exit on loss: a refused renewal is the loss on_loss hears; no second term") {
  MemoryStore store;
  auto o = options("a");
  o.exit_on_loss = true;
  std::atomic<int> losses{0};
  o.on_loss = [&](const std::string& name) {
    CHECK(name == "sweeper");
    ++losses;
  };
  Served a(store, o);
  REQUIRE(eventually([&] { return a.leads(); }));
  const Deadline soon = within_a_second();
  const LeaseState held = inspect(store);
  REQUIRE(store.release("sweeper", held.holder, soon).status == LeaseStatus::released);  // behind its back
  REQUIRE(eventually([&] { return losses.load() == 1; }, seconds(5)));  // its next renewal (T/3) is refused
  CHECK(a.get()["leader"] == false);
}

TEST_CASE("one secret compared whole; the token file's first line") {
  CHECK(elector::same_secret("abc", "abc"));
  CHECK_FALSE(elector::same_secret("abc", "abd"));
  CHECK_FALSE(elector::same_secret("abc", "abcd"));
  CHECK_FALSE(elector::same_secret("", "a"));
  CHECK(elector::token_from_file_text("t0k\r\nrest") == "t0k");
  CHECK(elector::token_from_file_text("  \n") == std::nullopt);
}

TEST_CASE("several leases: each its own; / and /sse are for one") {
  MemoryStore store;
  Served a(store, options("a", {"one", "two"}));
  REQUIRE(eventually([&] { return a.get("/leases/one")["leader"] == true && a.get("/leases/two")["leader"] == true; }));
  CHECK(fetch(a.url("/")).status == 404);
  CHECK(fetch(a.url("/sse")).status == 404);
  // Their campaigns in one exposition: each family once, a sample per lease.
  const std::string text = a.elector.prometheus();
  CHECK(text.find("forgemeter_lease_leader{lease=\"one\"} 1\n") != std::string::npos);
  CHECK(text.find("forgemeter_lease_leader{lease=\"two\"} 1\n") != std::string::npos);
  const std::string type = "# TYPE forgemeter_lease_store_errors_total counter";
  CHECK(text.find(type) != std::string::npos);
  CHECK(text.find(type) == text.rfind(type));
  CHECK(fmtest::promtool_check_metrics(text) == "");
  CHECK(a.elector.health() == std::nullopt);
}
