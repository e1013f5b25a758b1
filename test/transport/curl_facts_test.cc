// The libcurl 7.88 behaviour the counting relies on, checked on a bare handle.
#include <curl/curl.h>
#include <doctest/doctest.h>

#include <memory>

#include "transport_rig.h"
#include "vanishing_peer.h"

using namespace fmtest;

namespace {

struct Seen {
  CURL* h = nullptr;
  std::vector<std::string> prereq_urls;
  std::vector<std::string> status_lines;
};

int prereq(void* p, char*, char*, int, int) {
  auto* s = static_cast<Seen*>(p);
  char* url = nullptr;
  curl_easy_getinfo(s->h, CURLINFO_EFFECTIVE_URL, &url);
  s->prereq_urls.emplace_back(url ? url : "");
  return CURL_PREREQFUNC_OK;
}

std::size_t header(char* d, std::size_t size, std::size_t n, void* p) {
  std::string_view line(d, size * n);
  if (line.substr(0, 5) == "HTTP/") static_cast<Seen*>(p)->status_lines.emplace_back(line.substr(0, 12));
  return size * n;
}

std::size_t discard(char*, std::size_t size, std::size_t n, void*) { return size * n; }

struct Handle {
  Handle() : h(curl_easy_init()) {}
  ~Handle() {
    curl_easy_cleanup(h);
    curl_slist_free_all(resolve);
  }
  // Options that every perform below uses (again after a reset).
  void setup(Seen& seen, const std::string& url, const std::vector<std::string>& entries = {}) {
    seen.h = h;
    if (!resolve)
      for (const auto& e : entries) resolve = curl_slist_append(resolve, e.c_str());
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_RESOLVE, resolve);
    curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, prereq);
    curl_easy_setopt(h, CURLOPT_PREREQDATA, &seen);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &seen);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
  }
  CURL* h;
  curl_slist* resolve = nullptr;
};

}  // namespace

TEST_CASE("libcurl: PREREQFUNCTION fires once per hop and EFFECTIVE_URL there is that hop's URL") {
  Rig rig;
  Handle handle;
  Seen seen;
  handle.setup(seen, rig.url("api.forge.test", "/chain/2"), rig.forge().resolve());
  curl_easy_setopt(handle.h, CURLOPT_FOLLOWLOCATION, 1L);
  REQUIRE(curl_easy_perform(handle.h) == CURLE_OK);
  REQUIRE(seen.prereq_urls.size() == 3);
  CHECK(forgemeter::host_of(seen.prereq_urls[0]) == rig.host("api.forge.test"));
  CHECK(forgemeter::host_of(seen.prereq_urls[1]) == rig.host("uploads.forge.test"));
  CHECK(forgemeter::host_of(seen.prereq_urls[2]) == rig.host("codeload.forge.test"));
  // The header callback sees every hop's status line.
  CHECK(seen.status_lines == std::vector<std::string>{"HTTP/1.1 302", "HTTP/1.1 302", "HTTP/1.1 200"});
  // CURLINFO_REDIRECT_COUNT counts redirects followed, not requests sent.
  long redirects = 0;
  curl_easy_getinfo(handle.h, CURLINFO_REDIRECT_COUNT, &redirects);
  CHECK(redirects == 2);
  CHECK(rig.forge().truth().total() == 3);
}

TEST_CASE("libcurl: a 100 Continue is a status line of its own before the real one") {
  Rig rig;
  Handle handle;
  Seen seen;
  handle.setup(seen, rig.url("api.forge.test", "/echo"), rig.forge().resolve());
  curl_slist* expect = curl_slist_append(nullptr, "Expect: 100-continue");
  curl_easy_setopt(handle.h, CURLOPT_HTTPHEADER, expect);
  curl_easy_setopt(handle.h, CURLOPT_POSTFIELDS, "body");
  REQUIRE(curl_easy_perform(handle.h) == CURLE_OK);
  curl_slist_free_all(expect);
  CHECK(seen.prereq_urls.size() == 1);
  CHECK(seen.status_lines == std::vector<std::string>{"HTTP/1.1 100", "HTTP/1.1 200"});
}

TEST_CASE("libcurl: a perform that fails before sending never calls PREREQFUNCTION") {
  tf::Forge gone({.tls = true});
  const std::string tls_url = gone.tls_url("api.forge.test", "/x");
  Handle tls;
  Seen tls_seen;
  tls.setup(tls_seen, tls_url, gone.resolve());  // system CAs: the test CA is unknown
  CHECK(curl_easy_perform(tls.h) == CURLE_PEER_FAILED_VERIFICATION);
  CHECK(tls_seen.prereq_urls.empty());
  CHECK(gone.truth().total() == 0);

  const std::string url = gone.url("api.forge.test", "/x");
  gone.stop();
  Handle refused;
  Seen seen;
  refused.setup(seen, url, gone.resolve());
  CHECK(curl_easy_perform(refused.h) == CURLE_COULDNT_CONNECT);
  CHECK(seen.prereq_urls.empty());
}

TEST_CASE("libcurl: a dead reused connection is resent on a fresh one, each a PREREQFUNCTION call") {
  VanishingPeer peer;
  const std::string url = "http://127.0.0.1:" + std::to_string(peer.port()) + "/x";
  Handle handle;
  Seen seen;
  handle.setup(seen, url);
  REQUIRE(curl_easy_perform(handle.h) == CURLE_OK);  // connection 1, answered
  REQUIRE(curl_easy_perform(handle.h) == CURLE_OK);  // reused: hung up on, resent on connection 2
  CHECK(seen.prereq_urls.size() == 3);
  CHECK(peer.requests_read() == 3);
}

TEST_CASE("libcurl: the dead-connection resend limit is per handle; curl_easy_reset renews it") {
  VanishingPeer peer;
  const std::string url = "http://127.0.0.1:" + std::to_string(peer.port()) + "/x";
  SUBCASE("without a reset the 7th request on one handle is not resent") {
    Handle handle;
    Seen seen;
    handle.setup(seen, url);
    REQUIRE(curl_easy_perform(handle.h) == CURLE_OK);
    for (int i = 0; i < 5; ++i) REQUIRE(curl_easy_perform(handle.h) == CURLE_OK);  // 5 resends used up
    CHECK(curl_easy_perform(handle.h) == CURLE_SEND_ERROR);                        // "Connection died, tried 5 times"
  }
  SUBCASE("with a reset before each request every one is resent") {
    Handle handle;
    Seen seen;
    for (int i = 0; i < 10; ++i) {
      curl_easy_reset(handle.h);
      handle.setup(seen, url);
      REQUIRE(curl_easy_perform(handle.h) == CURLE_OK);
    }
    CHECK(seen.prereq_urls.size() == 19);  // 10 requests, 9 of them resent once
    CHECK(peer.requests_read() == 19);
  }
}

TEST_CASE("Transport counts libcurl's own resends: meter == what the peer read") {
  VanishingPeer peer;
  Rig rig;
  const std::string url = "http://127.0.0.1:" + std::to_string(peer.port()) + "/x";
  for (int i = 0; i < 10; ++i) REQUIRE(rig.get(url).ok());  // more than the per-handle limit of 5
  const auto c = rig.counted();
  CHECK(c.by_host.at(forgemeter::host_of(url)) == static_cast<std::uint64_t>(peer.requests_read()));
  CHECK(c.answered(forgemeter::host_of(url), forgemeter::AnswerClass::none) == 9);
  CHECK(c.answered(forgemeter::host_of(url), forgemeter::AnswerClass::ok2xx) == 10);
}
