// A JSON body's URL strings rewritten as it streams, whatever its chunks.
#include <doctest/doctest.h>

#include <random>

#include "proxy/url_rewrite.h"

using namespace forgemeter::proxy;

namespace {

std::string whole(const UrlRewriter& r, std::string_view body) {
  BodyRewriter b(r);
  std::string out;
  b.write(body, out);
  b.finish(out);
  return out;
}

// The body cut at random places (empty chunks too), each chunk written alone.
std::string split(const UrlRewriter& r, std::string_view body, std::mt19937& rng) {
  BodyRewriter b(r);
  std::string out;
  std::size_t at = 0;
  while (at < body.size()) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 12)(rng);
    b.write(body.substr(at, n), out);
    at += std::min(n, body.size() - at);
  }
  b.finish(out);
  return out;
}

}  // namespace

TEST_CASE("JSON URL strings, plain and escaped, are rewritten; others and non-URLs are not") {
  const UrlRewriter r("https://api.github.com", "http://127.0.0.1:8080/lanes/a");
  const std::string body =
      R"({"url":"https://api.github.com/repos/o/r","escaped":"https:\/\/api.github.com\/repos\/o\/r",)"
      R"("bare":"https://api.github.com","html_url":"https://github.com/o/r",)"
      R"("evil":"https://api.github.com.evil/x","x":"https://api.github.comx",)"
      R"("text":"see https://api.github.com/repos/o/r","q":"https://api.github.com?page=2"})";
  CHECK(
      whole(r, body) ==
      R"({"url":"http://127.0.0.1:8080/lanes/a/repos/o/r","escaped":"http:\/\/127.0.0.1:8080\/lanes\/a\/repos\/o\/r",)"
      R"("bare":"http://127.0.0.1:8080/lanes/a","html_url":"https://github.com/o/r",)"
      R"("evil":"https://api.github.com.evil/x","x":"https://api.github.comx",)"
      R"("text":"see https://api.github.com/repos/o/r","q":"http://127.0.0.1:8080/lanes/a?page=2"})");
}

TEST_CASE("a body that ends inside a possible URL is given back as it was") {
  const UrlRewriter r("https://api.github.com", "http://p");
  for (std::string_view tail : {"\"", "\"https://api.git", "\"https://api.github.com", "\"https:\\/\\/api"})
    CHECK(whole(r, std::string("[") + std::string(tail)) == std::string("[") + std::string(tail));
}

TEST_CASE("property: rewriting the chunks equals rewriting the whole, for random bodies and splits") {
  const UrlRewriter r("https://api.github.com/api/v3", "http://127.0.0.1:1/lanes/lane-a");
  // Pieces that make near-misses likely: prefixes of both forms, quotes, boundaries.
  const std::vector<std::string> pieces = {"\"",
                                           "https://api.github.com/api/v3",
                                           "https:\\/\\/api.github.com\\/api\\/v3",
                                           "https://api.github.com/api/v",
                                           "https:\\/\\/api.git",
                                           "/",
                                           "\\",
                                           "?",
                                           "x",
                                           "{\"url\":",
                                           ",",
                                           "h",
                                           "#"};
  std::mt19937 rng(20261206);
  std::size_t rewritten = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string body;
    const int n = std::uniform_int_distribution<int>(0, 40)(rng);
    for (int i = 0; i < n; ++i) body += pieces[std::uniform_int_distribution<std::size_t>(0, pieces.size() - 1)(rng)];
    const std::string expected = whole(r, body);
    if (expected != body) ++rewritten;
    for (int s = 0; s < 4; ++s) REQUIRE(split(r, body, rng) == expected);
  }
  CHECK(rewritten > 100);  // the property was tried on bodies that do change
}

TEST_CASE("memory: no more than a base and two bytes are held between chunks") {
  const UrlRewriter r("https://api.github.com", "http://p");
  BodyRewriter b(r);
  std::string out;
  std::size_t in = 0;
  const std::string chunk = "\"https:\\/\\/api.github.co";  // every chunk ends inside a possible URL
  for (int i = 0; i < 10000; ++i) {
    b.write(chunk, out);
    in += chunk.size();
    CHECK(in - out.size() <= std::string_view("https:\\/\\/api.github.com").size() + 2);
  }
  b.finish(out);
  CHECK(out.size() == in);
}

TEST_CASE("a body of nothing but URLs grows by the bases' difference per URL, no more") {
  const UrlRewriter r("http://a", "http://bbbbbbbbbb");
  std::string body;
  for (int i = 0; i < 100000; ++i) body += "\"http://a/\"";
  const std::string out = whole(r, body);
  // Each string holds one URL whose start is a quote; the closing quote of one starts nothing.
  CHECK(out.size() == body.size() + 100000 * 9);
}

TEST_CASE("rewrites_body: JSON only, and only as text") {
  for (std::string_view t : {"application/json", "application/json; charset=utf-8", "Application/JSON",
                             "application/vnd.github+json", "application/vnd.github.v3+json; charset=utf-8"})
    CHECK(rewrites_body(t));
  for (std::string_view t : {"", "text/plain", "application/octet-stream", "text/json+html", "application/+json",
                             "application/vnd.github.raw", "application/jsonx"})
    CHECK_FALSE(rewrites_body(t));
  CHECK(rewrites_body("application/json", "identity"));
  CHECK(rewrites_body("application/json", " "));
  CHECK_FALSE(rewrites_body("application/json", "gzip"));
  CHECK_FALSE(rewrites_body("application/json", "br"));
}
