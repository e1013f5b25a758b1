// core/origin.h against libcurl's own URL parser: the origin the credential
// rule and the cache compare is the one libcurl connects to. Where core's
// reading is stricter (a URL it refuses that libcurl would read), nothing is
// sent; where both read one, they read the same.
#include <curl/curl.h>

#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "core/ascii.h"
#include "core/origin.h"

namespace {

using forgemeter::core_detail::Origin;
using forgemeter::core_detail::origin_of;

std::string part(CURLU* u, CURLUPart which, unsigned flags) {
  char* s = nullptr;
  if (curl_url_get(u, which, &s, flags) != CURLUE_OK || !s) return {};
  std::string out = forgemeter::core_detail::ascii_lowercase(s);
  curl_free(s);
  return out;
}

// How libcurl reads `url`'s origin (the rule the transport used before it
// had its own), or nullopt.
std::optional<Origin> curl_origin(const std::string& url) {
  CURLU* u = curl_url();
  std::optional<Origin> out;
  if (curl_url_set(u, CURLUPART_URL, url.c_str(), CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK) {
    Origin o{part(u, CURLUPART_SCHEME, 0), part(u, CURLUPART_HOST, 0), part(u, CURLUPART_PORT, CURLU_DEFAULT_PORT)};
    if (!o.scheme.empty()) out = std::move(o);
  }
  curl_url_cleanup(u);
  return out;
}

}  // namespace

TEST_CASE("core's origin is libcurl's wherever core reads one") {
  for (const std::string url : {
           "https://api.github.com/repos/o/r",
           "HTTPS://API.GitHub.COM:443/x",
           "http://h/",
           "http://H:80/",
           "http://h:8080",
           "http://h:08080/p",
           "https://user:pw@api.github.com/x",
           "https://api.github.com@evil.example/x",
           "https://evil.example\\@api.github.com/",
           "https://[::1]:8443/x",
           "https://[::1]/x",
           "http://127.0.0.1:9/x?y#z",
           "http://h?q",
           "http://h#f",
           "http://h:/p",
           "ftp://files.example/x",
           "gopher://h/",
           "file:///etc/passwd",
           "http://a@b@c/",
           "http://h:99999/",
           "http://h:-1/",
           "http://h:1a/",
           "http://ex%41mple.com/",
           "http://h o/",
           "//h/x",
           "h/x",
           "http:/h/x",
           "",
       }) {
    CAPTURE(url);
    const auto ours = origin_of(url);
    const auto curls = curl_origin(url);
    if (ours && !ours->host.empty()) {
      REQUIRE(curls.has_value());
      CHECK(ours->scheme == curls->scheme);
      CHECK(ours->host == curls->host);
      // Only http and https are sent: core knows no other scheme's default port.
      if (forgemeter::core_detail::allowed_scheme(ours->scheme)) CHECK(ours->port == curls->port);
    }
    if (!curls || curls->host.empty()) CHECK((!ours || ours->host.empty()));
  }
}

TEST_CASE("a URL core could read two ways has no origin") {
  CHECK_FALSE(origin_of("http://a@b@c/").has_value());
  CHECK_FALSE(origin_of("http://h:99999/").has_value());
  CHECK_FALSE(origin_of("http://ex%41mple.com/").has_value());
  CHECK_FALSE(origin_of("no scheme").has_value());
  CHECK(origin_of("https://API.github.com/x")->key() == "https://api.github.com:443");
}
