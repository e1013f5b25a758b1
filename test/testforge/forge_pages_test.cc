// The loopback forge as GitHub's REST API pages it: repositories and pulls
// in GitHub's shapes with absolute URLs, lists paged by per_page and page
// with a Link header, read by the Transport over loopback.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "forgemeter/transport.h"
#include "proxy/url_rewrite.h"
#include "testforge/forge.h"

using namespace forgemeter;
using nlohmann::json;

namespace {

struct Client {
  testforge::Forge forge;
  Meter meter{MeterOptions{.sink = [](std::string_view) {}}};
  Transport transport{TransportOptions{.meter = &meter, .resolve = forge.resolve()}};

  explicit Client(testforge::ForgeOptions o = {}) : forge(o) {}
  std::string origin() const { return "http://api.forge.test:" + std::to_string(forge.port()); }
  Response get(const std::string& url, std::vector<Header> headers = {}) {
    return transport.perform({.url = url, .headers = std::move(headers)});
  }
};

// rel -> URL of a GitHub Link header.
std::map<std::string, std::string> links(std::string_view link) {
  std::map<std::string, std::string> out;
  static const std::regex one(R"re(<([^>]*)>; rel="([a-z]+)")re");
  const std::string text(link);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), one); it != std::sregex_iterator(); ++it)
    out[(*it)[2]] = (*it)[1];
  return out;
}

}  // namespace

TEST_CASE("forge: a repository in GitHub's shape, its url absolute on the origin asked") {
  Client c;
  const Response res = c.get(c.origin() + "/repos/o/r");
  REQUIRE(res.status == 200);
  const json repo = json::parse(res.body);
  CHECK(repo["path"] == "/repos/o/r");  // the forge's own fields first, as before
  CHECK(repo["url"] == c.origin() + "/repos/o/r");
  CHECK(repo["full_name"] == "o/r");
  CHECK(repo["name"] == "r");
  CHECK(repo["owner"]["login"] == "o");
  CHECK(repo["id"].is_number_unsigned());
  CHECK(repo["pulls_url"] == c.origin() + "/repos/o/r/pulls{/number}");
  // Another Host, another origin in the body.
  const std::string other = "http://uploads.forge.test:" + std::to_string(c.forge.port());
  CHECK(json::parse(c.get(other + "/repos/o/r").body)["url"] == other + "/repos/o/r");
}

TEST_CASE("forge: a pull in GitHub's shape keeps the forge's own fields") {
  Client c;
  const Response res = c.get(c.origin() + "/repos/o/r/pulls/7", {{"Authorization", "Bearer inst-5"}});
  REQUIRE(res.status == 200);
  const json pull = json::parse(res.body);
  CHECK(pull["number"] == 7);
  CHECK(pull["url"] == c.origin() + "/repos/o/r/pulls/7");
  CHECK(pull["state"] == "open");
  CHECK(pull["head"]["ref"] == "topic-7");
  CHECK(pull["base"]["ref"] == "main");
  CHECK(pull["viewer"].is_string());
  CHECK(res.body.find("inst-5") == std::string::npos);
  // Paths GitHub has no shape for here keep the plain body.
  CHECK(c.get(c.origin() + "/repos/o/r/issues/1").body == R"({"path":"/repos/o/r/issues/1","state":"open"})");
}

TEST_CASE("forge: a list is paged by per_page and page, following Link's next reaches every pull once") {
  Client c;
  std::string url = c.origin() + "/repos/o/r/pulls?state=open";
  std::set<int> seen;
  int pages = 0;
  while (!url.empty() && pages < 10) {
    const Response res = c.get(url);
    REQUIRE(res.status == 200);
    ++pages;
    const json list = json::parse(res.body);
    REQUIRE(list.is_array());
    for (const auto& pull : list) {
      CHECK(seen.insert(pull["number"].get<int>()).second);
      CHECK(pull["url"] == c.origin() + "/repos/o/r/pulls/" + std::to_string(pull["number"].get<int>()));
    }
    const auto link = res.header("Link");
    REQUIRE(link);
    const auto rel = links(*link);
    CHECK(rel.count("next") == (pages < 3 ? 1 : 0));  // the last page has no next, no last (as GitHub)
    CHECK(rel.count("last") == (pages < 3 ? 1 : 0));
    for (const auto& [name, target] : rel) {
      CHECK(target.starts_with(c.origin() + "/repos/o/r/pulls?"));
      CHECK(target.find("state=open") != std::string::npos);  // the request's parameters kept
    }
    if (pages > 1) CHECK(rel.count("prev") == 1);
    url = rel.count("next") ? rel.at("next") : "";
  }
  CHECK(pages == 3);  // 75 pulls, 30 a page
  CHECK(seen.size() == 75);
  CHECK(*seen.begin() == 1);
  CHECK(*seen.rbegin() == 75);
}

TEST_CASE("forge: per_page, the last page, past it, and one page without a Link") {
  Client c({.pulls = 5});
  const Response first = c.get(c.origin() + "/repos/o/r/pulls?per_page=2");
  CHECK(json::parse(first.body).size() == 2);
  auto rel = links(*first.header("Link"));
  CHECK(rel.at("next") == c.origin() + "/repos/o/r/pulls?page=2&per_page=2");
  CHECK(rel.at("last") == c.origin() + "/repos/o/r/pulls?page=3&per_page=2");
  CHECK(rel.count("prev") == 0);
  const Response last = c.get(rel.at("last"));
  CHECK(json::parse(last.body).size() == 1);
  rel = links(*last.header("Link"));
  CHECK(rel.count("next") == 0);
  CHECK(rel.at("first") == c.origin() + "/repos/o/r/pulls?page=1&per_page=2");
  CHECK(json::parse(c.get(c.origin() + "/repos/o/r/pulls?per_page=2&page=9").body).empty());
  const Response whole = c.get(c.origin() + "/repos/o/r/pulls?per_page=100");
  CHECK(json::parse(whole.body).size() == 5);
  CHECK_FALSE(whole.header("Link"));
  CHECK(json::parse(c.get(c.origin() + "/repos/o/r/pulls?per_page=1000").body).size() == 5);  // at most 100
}

TEST_CASE("forge: each page has its own ETag; a page's tag makes that page, not another, a 304") {
  Client c;
  const Response p1 = c.get(c.origin() + "/repos/o/r/pulls?page=1");
  const Response p2 = c.get(c.origin() + "/repos/o/r/pulls?page=2");
  REQUIRE(p1.header("ETag"));
  CHECK(p1.header("ETag") != p2.header("ETag"));
  const std::string tag(*p2.header("ETag"));
  CHECK(c.get(c.origin() + "/repos/o/r/pulls?page=2", {{"If-None-Match", tag}}).status == 304);
  CHECK(c.get(c.origin() + "/repos/o/r/pulls?page=1", {{"If-None-Match", tag}}).status == 200);
}

TEST_CASE("forge pages through the proxy's rewriting: every URL lands on the public base") {
  Client c({.pulls = 5});
  const proxy::UrlRewriter r(c.origin(), "http://127.0.0.1:9/lanes/sweep");
  const Response res = c.get(c.origin() + "/repos/o/r/pulls?per_page=2&page=2");
  const auto link = r.link(*res.header("Link"));
  REQUIRE_FALSE(link.refused);
  for (const auto& [rel, target] : links(link.value))
    CHECK(target.starts_with("http://127.0.0.1:9/lanes/sweep/repos/o/r/pulls?"));
  proxy::BodyRewriter body(r);
  std::string out;
  for (std::size_t at = 0; at < res.body.size(); at += 7) body.write(std::string_view(res.body).substr(at, 7), out);
  body.finish(out);
  for (const auto& pull : json::parse(out))
    CHECK(pull["url"].get<std::string>().starts_with("http://127.0.0.1:9/lanes/sweep/repos/o/r/pulls/"));
  CHECK(out.find(c.origin()) == std::string::npos);
}
