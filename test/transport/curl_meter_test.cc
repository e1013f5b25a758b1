// CurlMeter: a plain CURL* perform with the meter attached counts exactly as
// Transport does for the same workload.
#include <curl/curl.h>
#include <doctest/doctest.h>

#include "forgemeter/curl_meter.h"
#include "transport_rig.h"

using namespace fmtest;

namespace {

std::size_t discard(char*, std::size_t size, std::size_t n, void*) { return size * n; }

struct Calls {
  int header_lines = 0;
  int prereqs = 0;
  bool abort = false;
};
std::size_t my_header(char*, std::size_t size, std::size_t n, void* p) {
  ++static_cast<Calls*>(p)->header_lines;
  return size * n;
}
int my_prereq(void* p, char*, char*, int, int) {
  auto* c = static_cast<Calls*>(p);
  ++c->prereqs;
  return c->abort ? CURL_PREREQFUNC_ABORT : CURL_PREREQFUNC_OK;
}

// The workload: (path, installation) pairs.
std::vector<std::pair<std::string, std::uint64_t>> workload() {
  return {{"/repos/o/r/pulls/1", 101},
          {"/chain/2", 101},
          {"/chain/3", 0},
          {"/status/503", 7},
          {"/drop", 7},
          {"/loop", 0},
          {"/echo", 101},
          {"/status/404", 0}};
}

}  // namespace

TEST_CASE("CurlMeter on a user's handle gives the same counts as Transport") {
  Rig via_transport;
  for (const auto& [path, inst] : workload()) via_transport.get(via_transport.url("api.forge.test", path), inst);
  // Transport also sends a POST to GraphQL.
  via_transport.transport().perform(
      {.method = "POST", .url = via_transport.url("api.forge.test", "/graphql"), .body = "{}"});
  // And one refused connection.
  tf::Forge gone;
  const std::string closed = "http://127.0.0.1:" + std::to_string(gone.port()) + "/x";
  gone.stop();
  via_transport.get(closed);

  Rig via_curl;
  // The same ports on both forges cannot be had, so compare by host name and
  // reconstruct the second forge's URLs with its own port.
  curl_slist* resolve = nullptr;
  for (const auto& e : via_curl.forge().resolve()) resolve = curl_slist_append(resolve, e.c_str());
  CURL* h = curl_easy_init();
  auto run = [&](const std::string& url, std::uint64_t inst, const char* post_body) {
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_RESOLVE, resolve);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
    if (post_body) curl_easy_setopt(h, CURLOPT_POSTFIELDS, post_body);
    const std::string auth = "Authorization: Bearer inst-" + std::to_string(inst);
    curl_slist* headers = inst ? curl_slist_append(nullptr, auth.c_str()) : nullptr;
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    struct Free {
      curl_slist* l;
      ~Free() { curl_slist_free_all(l); }
    } free_headers{headers};
    forgemeter::CurlMeter metered(h, via_curl.meter(), {.installation = inst});
    return metered.perform();
  };
  for (const auto& [path, inst] : workload()) run(via_curl.url("api.forge.test", path), inst, nullptr);
  run(via_curl.url("api.forge.test", "/graphql"), 0, "{}");
  CHECK(run(closed, 0, nullptr) == CURLE_COULDNT_CONNECT);
  curl_easy_cleanup(h);
  curl_slist_free_all(resolve);

  // Same requests on the wire...
  CHECK(via_transport.forge().truth().total() == via_curl.forge().truth().total());
  // ...and the same counts, host by host (ports differ between the two forges).
  auto by_name = [](const Counted& c, int port) {
    std::map<std::string, std::uint64_t> out;
    const std::string suffix = ":" + std::to_string(port);
    for (const auto& [full, n] : c.by_host) {
      std::string host = full;
      if (host.ends_with(suffix)) host.resize(host.size() - suffix.size());
      out[host] += n;
    }
    return out;
  };
  const auto a = via_transport.counted();
  const auto b = via_curl.counted();
  CHECK(by_name(a, via_transport.forge().port()) == by_name(b, via_curl.forge().port()));
  CHECK(a.total == b.total);
  CHECK(a.total == via_transport.forge().truth().total() + 1);  // + the refused connect
  CHECK(a.lowest(101) == b.lowest(101));
  CHECK(a.lowest(7) == b.lowest(7));
  auto classes = [](const Counted& c) {
    std::array<std::uint64_t, forgemeter::kAnswerClasses> sum{};
    for (const auto& [host, counts] : c.answers)
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += counts[i];
    return sum;
  };
  CHECK(classes(a) == classes(b));
}

TEST_CASE("CurlMeter chains the user's callbacks and restores them afterwards") {
  Rig rig;
  curl_slist* resolve = nullptr;
  for (const auto& e : rig.forge().resolve()) resolve = curl_slist_append(resolve, e.c_str());
  CURL* h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_RESOLVE, resolve);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_setopt(h, CURLOPT_URL, rig.url("api.forge.test", "/echo").c_str());
  Calls calls;
  {
    forgemeter::CurlMeter metered(h, rig.meter());
    metered.chain_header_callback(my_header, &calls);
    metered.chain_prereq_callback(my_prereq, &calls);
    CHECK(metered.perform() == CURLE_OK);
    CHECK(metered.hops().size() == 1);
  }
  CHECK(calls.prereqs == 1);
  CHECK(calls.header_lines > 3);
  // After the CurlMeter ends, the user's callbacks are on the handle: they run, nothing is counted.
  const int lines_before = calls.header_lines;
  REQUIRE(curl_easy_perform(h) == CURLE_OK);
  CHECK(calls.prereqs == 2);
  CHECK(calls.header_lines > lines_before);
  // A request the user's prerequest callback aborts is not sent and not counted.
  {
    calls.abort = true;
    forgemeter::CurlMeter metered(h, rig.meter());
    metered.chain_prereq_callback(my_prereq, &calls);
    CHECK(metered.perform() == CURLE_ABORTED_BY_CALLBACK);
    CHECK(metered.hops().empty());
  }
  curl_easy_cleanup(h);
  curl_slist_free_all(resolve);
  CHECK(rig.counted().total == 1);
  CHECK(rig.forge().truth().total() == 2);
  CHECK_THROWS_AS(forgemeter::CurlMeter(nullptr, rig.meter()), std::invalid_argument);
}

TEST_CASE("a 100 Continue is not an answer: one request, one 2xx (CurlMeter and Transport)") {
  Rig rig;
  curl_slist* resolve = nullptr;
  for (const auto& e : rig.forge().resolve()) resolve = curl_slist_append(resolve, e.c_str());
  curl_slist* expect = curl_slist_append(nullptr, "Expect: 100-continue");
  CURL* h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_RESOLVE, resolve);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, expect);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, "body");
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_setopt(h, CURLOPT_URL, rig.url("api.forge.test", "/echo").c_str());
  {
    forgemeter::CurlMeter metered(h, rig.meter());
    REQUIRE(metered.perform() == CURLE_OK);
    REQUIRE(metered.hops().size() == 1);
    CHECK(metered.hops()[0].status == 200);
  }
  curl_easy_cleanup(h);
  curl_slist_free_all(expect);
  curl_slist_free_all(resolve);
  auto res = rig.transport().perform({.method = "POST",
                                      .url = rig.url("api.forge.test", "/echo"),
                                      .headers = {{"Expect", "100-continue"}},
                                      .body = "body"});
  REQUIRE(res.ok());
  CHECK(res.hops.size() == 1);
  const auto c = rig.counted();
  CHECK(c.total == 2);
  CHECK(c.answered(rig.host("api.forge.test"), forgemeter::AnswerClass::ok2xx) == 2);
  CHECK(c.answered(rig.host("api.forge.test"), forgemeter::AnswerClass::none) == 0);
}
