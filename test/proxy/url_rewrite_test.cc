// URLs on the upstream's base written on the client's, in Location and Link.
#include <doctest/doctest.h>

#include <stdexcept>

#include "proxy/url_rewrite.h"

using namespace forgemeter::proxy;

TEST_CASE("a URL on the upstream base is written on the public one; any other is left alone") {
  const UrlRewriter r("https://api.github.com", "http://127.0.0.1:8080/lanes/sweep");
  CHECK(r.url("https://api.github.com/repos/o/r") == "http://127.0.0.1:8080/lanes/sweep/repos/o/r");
  CHECK(r.url("https://api.github.com") == "http://127.0.0.1:8080/lanes/sweep");
  CHECK(r.url("https://api.github.com?x=1") == "http://127.0.0.1:8080/lanes/sweep?x=1");
  CHECK(r.url("https://api.github.com#f") == "http://127.0.0.1:8080/lanes/sweep#f");
  // Not at a boundary, another scheme, port or host: not the upstream.
  for (std::string_view other :
       {"https://api.github.com.evil/repos", "https://api.github.comx", "https://api.github.com:8443/x",
        "http://api.github.com/x", "https://uploads.github.com/x", "https://github.com/o/r", "/repos/o/r", ""})
    CHECK(r.url(other) == other);
}

TEST_CASE("an Enterprise base path: only URLs under it are the upstream's") {
  const UrlRewriter r("https://ghe.example/api/v3/", "http://proxy:8080/");
  CHECK(r.upstream_base() == "https://ghe.example/api/v3");
  CHECK(r.public_base() == "http://proxy:8080");
  CHECK(r.url("https://ghe.example/api/v3/repos/o/r") == "http://proxy:8080/repos/o/r");
  CHECK(r.url("https://ghe.example/api/v3x/repos") == "https://ghe.example/api/v3x/repos");
  CHECK(r.url("https://ghe.example/o/r") == "https://ghe.example/o/r");  // the web UI, not the API
}

TEST_CASE("Location: absolute or a path on the upstream; a control byte or a huge one refused") {
  const UrlRewriter r("https://ghe.example/api/v3", "http://proxy:8080/lanes/a");
  CHECK(r.location("https://ghe.example/api/v3/repos/o/r2").value == "http://proxy:8080/lanes/a/repos/o/r2");
  CHECK(r.location("/api/v3/repos/o/r2").value == "http://proxy:8080/lanes/a/repos/o/r2");
  // A path outside the base is the forge's: sent back absolute, so the client goes there, not to the proxy.
  CHECK(r.location("/login").value == "https://ghe.example/login");
  CHECK(r.location("//ghe.example/api/v3/x").value == "http://proxy:8080/lanes/a/x");
  CHECK(r.location("https://elsewhere.example/api/v3/x").value == "https://elsewhere.example/api/v3/x");
  for (std::string_view bad : {std::string_view("https://ghe.example/api/v3/x\r\nSet-Cookie: a=b"),
                               std::string_view("/x\n"), std::string_view("/x\0", 3)}) {
    const auto out = r.location(bad);
    CHECK(out.refused);
    CHECK(out.value.empty());
  }
  CHECK(r.location(std::string(kMaxRewrittenHeader + 1, 'a')).refused);
}

TEST_CASE("Link: each target rewritten, parameters kept, other origins left") {
  const UrlRewriter r("https://api.github.com", "http://127.0.0.1:9000");
  const std::string link = R"(<https://api.github.com/repositories/1/pulls?page=2>; rel="next", )"
                           R"(<https://api.github.com/repositories/1/pulls?page=5>; rel="last", )"
                           R"(<https://other.example/x>; rel="help", </repositories/1/pulls?page=1>; rel="first")";
  CHECK(r.link(link).value ==
        R"(<http://127.0.0.1:9000/repositories/1/pulls?page=2>; rel="next", )"
        R"(<http://127.0.0.1:9000/repositories/1/pulls?page=5>; rel="last", )"
        R"(<https://other.example/x>; rel="help", <http://127.0.0.1:9000/repositories/1/pulls?page=1>; rel="first")");
  // Unclosed or stray brackets pass through as they were.
  CHECK(r.link("<https://api.github.com/a").value == "<https://api.github.com/a");
  CHECK(r.link("rel=next>").value == "rel=next>");
}

TEST_CASE("Link: a hostile one gives a bounded answer or a refusal, never a crash") {
  const UrlRewriter r("http://a", "http://a-much-longer-public-base.example:65535/lanes/some-lane-name");
  // 64 KiB of the shortest targets: each grows by the bases' difference.
  std::string many;
  while (many.size() + 11 <= kMaxRewrittenHeader) many += "<http://a>,";
  const auto out = r.link(many);
  CHECK(out.refused);
  CHECK(out.value.empty());
  CHECK(r.link(std::string(kMaxRewrittenHeader + 1, '<')).refused);
  CHECK(r.link("<http://a/x>\r\n").refused);
  // Within the bounds, a Link of brackets alone is kept as it was.
  CHECK(r.link(std::string(1000, '<')).value == std::string(1000, '<'));
  CHECK(r.link(std::string(1000, '>')).value == std::string(1000, '>'));
}

TEST_CASE("bases: checked before use") {
  CHECK_FALSE(UrlRewriter::check("https://api.github.com", "http://127.0.0.1:8080/lanes/a"));
  for (std::string_view bad : {"ftp://x", "api.github.com", "https://u:p@x", "https://x/?q=1", "https://x/#f",
                               "https://x/\"", "https://x/\\", "https://x/ a", "https://", "http://x/\n"}) {
    CHECK(UrlRewriter::check(bad, "http://p"));
    CHECK(UrlRewriter::check("http://p", bad));
    CHECK_THROWS_AS(UrlRewriter(bad, "http://p"), std::invalid_argument);
  }
}

TEST_CASE("public_base: the listener's scheme, the client's Host and the base path it used") {
  CHECK(public_base("http", "127.0.0.1:8080", "/lanes/a") == "http://127.0.0.1:8080/lanes/a");
  CHECK(public_base("https", "[::1]:8443", "") == "https://[::1]:8443");
  CHECK(public_base("http", "proxy.internal", "") == "http://proxy.internal");
  for (std::string_view host : {"", "a b", "a/b", "a\"b", "a\\b", "evil@a", "a\r\nX: y", "a?b"})
    CHECK_FALSE(public_base("http", host, ""));
  CHECK_FALSE(public_base("ftp", "a", ""));
  CHECK_FALSE(public_base("http", "a", "lanes"));
  CHECK_FALSE(public_base("http", "a", "/\"x"));
}

TEST_CASE("upstream_url: the base, the forwarded path and the query") {
  CHECK(upstream_url("https://api.github.com", "/repos/o/r", "") == "https://api.github.com/repos/o/r");
  CHECK(upstream_url("https://ghe.example/api/v3/", "/repos/o/r/pulls", "page=2&per_page=30") ==
        "https://ghe.example/api/v3/repos/o/r/pulls?page=2&per_page=30");
  CHECK(upstream_url("https://api.github.com", "/", "") == "https://api.github.com/");
  CHECK(upstream_url("https://api.github.com", "x", "") == "https://api.github.com/x");
}
