// Which header fields cross the proxy, each way.
#include <doctest/doctest.h>

#include <algorithm>

#include "proxy/header_filter.h"

using namespace forgemeter;
using namespace forgemeter::proxy;

namespace {

bool has(const std::vector<Field>& fields, std::string_view name) {
  return std::any_of(fields.begin(), fields.end(), [&](const Field& f) { return f.first == name; });
}

}  // namespace

TEST_CASE("inbound: hop-by-hop, Host, Expect and every X-Forgemeter-* field stay with the proxy") {
  const std::vector<Field> in = {{"Host", "proxy:8080"},
                                 {"Connection", "keep-alive, X-Custom-Hop"},
                                 {"Keep-Alive", "timeout=5"},
                                 {"Proxy-Connection", "keep-alive"},
                                 {"Proxy-Authorization", "Basic cHJveHk6cw=="},
                                 {"TE", "trailers"},
                                 {"Trailer", "X-Sum"},
                                 {"Transfer-Encoding", "chunked"},
                                 {"Upgrade", "h2c"},
                                 {"Expect", "100-continue"},
                                 {"x-custom-hop", "1"},
                                 {"Content-Length", "12"},
                                 {"X-Forgemeter-Lane", "sweeper"},
                                 {"x-forgemeter-installation", "101"},
                                 {"X-FORGEMETER-Anything", "x"},
                                 {"Authorization", "token abc"},
                                 {"Accept", "application/vnd.github+json"},
                                 {"If-None-Match", "\"e\""}};
  const Inbound out = filter_request(in);
  REQUIRE_FALSE(out.refused);
  CHECK(out.lane == "sweeper");
  CHECK(out.installation == "101");
  const std::vector<Field> expected = {
      {"Authorization", "token abc"}, {"Accept", "application/vnd.github+json"}, {"If-None-Match", "\"e\""}};
  CHECK(out.forward == expected);
  // The client's own framing crosses when the body is not re-framed.
  CHECK(has(filter_request(in, /*reframed=*/false).forward, "Content-Length"));
}

TEST_CASE("no X-Forgemeter-* field reaches the upstream, whatever its case or place") {
  for (std::string_view name : {"X-Forgemeter-Lane", "x-forgemeter-lane", "X-Forgemeter-Installation",
                                "X-Forgemeter-Test-Ground-Truth", "x-FORGEMETER-"}) {
    const Inbound out = filter_request({{"Accept", "*/*"}, {std::string(name), "v"}, {"User-Agent", "t"}});
    REQUIRE_FALSE(out.refused);
    CHECK_FALSE(has(out.forward, name));
    CHECK(out.forward.size() == 2);
  }
}

TEST_CASE("inbound: a field that would split a line refuses the whole request") {
  for (const Field& bad :
       {Field{"X-A", "1\r\nX-Injected: 1"}, Field{"X-A", "a\nb"}, Field{"X-A", std::string("a\0b", 3)},
        Field{"X A", "1"}, Field{"", "1"}, Field{"X-\r", "1"}, Field{"X:Y", "1"}}) {
    const Inbound out = filter_request({{"Accept", "*/*"}, bad});
    CHECK(out.refused);
    CHECK(out.forward.empty());
  }
  CHECK_FALSE(filter_request({{"X-A", "tab\tand spaces ok"}}).refused);
}

TEST_CASE("the first lane and installation header are the ones read") {
  const Inbound out = filter_request({{"X-Forgemeter-Lane", "a"}, {"X-Forgemeter-Lane", "b"}});
  CHECK(out.lane == "a");
  CHECK_FALSE(out.installation);
}

TEST_CASE("outbound: hop-by-hop fields, those Connection names, and the framing when re-framed") {
  Headers h;
  h.add_line("HTTP/1.1 200 OK\r\n");
  for (std::string_view line :
       {"Connection: close, X-Hop\r\n", "X-Hop: 1\r\n", "Keep-Alive: timeout=5\r\n", "Transfer-Encoding: chunked\r\n",
        "Content-Length: 10\r\n", "Upgrade: websocket\r\n", "Proxy-Authenticate: Basic\r\n", "ETag: \"e\"\r\n",
        "X-RateLimit-Remaining: 4999\r\n", "Link: <https://api.github.com/x?page=2>; rel=\"next\"\r\n"})
    h.add_field(line);
  const auto out = filter_response(h);
  const std::vector<Field> expected = {{"ETag", "\"e\""},
                                       {"X-RateLimit-Remaining", "4999"},
                                       {"Link", "<https://api.github.com/x?page=2>; rel=\"next\""}};
  CHECK(out == expected);
  const auto framed = filter_response(h, /*reframed=*/false);
  CHECK(has(framed, "Content-Length"));
  CHECK_FALSE(has(framed, "Transfer-Encoding"));
}

TEST_CASE("outbound: a hostile forge's field is dropped, the rest of its answer kept") {
  const std::vector<Field> in = {
      {"ETag", "\"a\rb\""}, {"Bad Name", "1"}, {"X-Ok", "1"}, {"X-Nul", std::string("a\0", 2)}};
  const std::vector<Field> expected = {{"X-Ok", "1"}};
  CHECK(filter_response(in) == expected);
}

TEST_CASE("is_hop_by_hop: RFC 9110's list, any case") {
  for (std::string_view n : {"connection", "KEEP-ALIVE", "proxy-connection", "Proxy-Authenticate",
                             "proxy-authorization", "te", "Trailer", "transfer-encoding", "upgrade"})
    CHECK(is_hop_by_hop(n));
  for (std::string_view n : {"Authorization", "Trailers", "Content-Length", "X-Connection"})
    CHECK_FALSE(is_hop_by_hop(n));
}
