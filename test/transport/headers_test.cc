// Response::headers: the Headers value (one buffer, an index of fields) and
// what the Transport puts in it; a handle kept between requests is told what
// changed (URL, timeout) and nothing of the last request lingers.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "transport_rig.h"

using namespace fmtest;
using forgemeter::Headers;
using forgemeter::Request;
using forgemeter::TransportErrc;

namespace {

Headers answer_block() {
  Headers h;
  h.add_line("HTTP/1.1 200 OK\r\n");
  CHECK(h.add_field("Content-Type: application/json\r\n") == 0);
  CHECK(h.add_field("X-RateLimit-Remaining:   4999 \t\r\n") == 1);
  CHECK(h.add_field("not a field\r\n") == Headers::npos);
  CHECK(h.add_field(": no name\r\n") == Headers::npos);
  CHECK(h.add_field("ETag: \"abc\"\r\n") == 2);
  CHECK(h.add_field("etag: second\r\n") == 3);
  CHECK(h.add_field("Empty:\r\n") == 4);
  h.add_line("\r\n");
  return h;
}

std::vector<std::string> flat(const Headers& h) {
  std::vector<std::string> out;
  for (auto [name, value] : h) out.push_back(std::string(name) + "=" + std::string(value));
  return out;
}

}  // namespace

TEST_CASE("Headers: fields in order, names as sent, values trimmed, the block kept byte for byte") {
  const Headers h = answer_block();
  CHECK(h.size() == 5);
  CHECK(flat(h) == std::vector<std::string>{"Content-Type=application/json", "X-RateLimit-Remaining=4999",
                                            "ETag=\"abc\"", "etag=second", "Empty="});
  CHECK(h.find("x-ratelimit-remaining") == "4999");
  CHECK(h.find("ETAG") == "\"abc\"");  // the first of that name
  CHECK(h.find("Empty") == "");
  CHECK_FALSE(h.find("not a field").has_value());
  CHECK_FALSE(h.find("Missing").has_value());
  CHECK(h.raw() ==
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-RateLimit-Remaining:   4999 \t\r\nnot a field\r\n"
        ": no name\r\nETag: \"abc\"\r\netag: second\r\nEmpty:\r\n\r\n");
  CHECK(Headers().empty());
  CHECK(Headers().raw().empty());
  CHECK(Headers().begin() == Headers().end());
}

TEST_CASE("Headers: copies are deep, moves leave an empty value, growth keeps every field") {
  Headers a = answer_block();
  Headers copy = a;
  copy.add_field("X-Copy: only here\r\n");
  CHECK(a.size() == 5);
  CHECK(copy.size() == 6);
  CHECK_FALSE(a.find("X-Copy").has_value());
  CHECK(copy.find("etag") == "\"abc\"");

  Headers moved = std::move(a);
  CHECK(moved.size() == 5);
  CHECK(a.empty());  // NOLINT(bugprone-use-after-move): a moved-from Headers is empty
  a = copy;          // assignable again
  CHECK(a.size() == 6);

  Headers big;
  const std::string value(5000, 'v');  // far past the first block
  for (int i = 0; i < 200; ++i)
    big.add_field("X-Field-" + std::to_string(i) + ": " + value + std::to_string(i) + "\r\n");
  REQUIRE(big.size() == 200);
  for (int i = 0; i < 200; i += 37) CHECK(big.find("x-field-" + std::to_string(i)) == value + std::to_string(i));
  CHECK(big[199].name == "X-Field-199");
  big.clear();
  CHECK(big.empty());
  CHECK(big.raw().empty());
}

TEST_CASE("Response::headers are the last answer's only: an earlier hop's block is dropped") {
  Rig rig;
  auto res = rig.transport().perform({.url = rig.url("api.forge.test", "/chain/2")});
  REQUIRE(res.ok());
  REQUIRE(res.hops.size() == 3);
  CHECK(res.status == 200);
  CHECK_FALSE(res.headers.find("Location").has_value());  // the 302s had one
  CHECK(res.headers.raw().substr(0, 13) == "HTTP/1.1 200 ");
  CHECK(res.headers.raw().ends_with("\r\n\r\n"));
  CHECK(res.header("X-RateLimit-Limit") == res.headers.find("x-ratelimit-limit"));
  std::size_t fields = 0;
  for (auto [name, value] : res.headers) {
    CHECK_FALSE(name.empty());
    CHECK(name.find(':') == std::string_view::npos);
    ++fields;
  }
  CHECK(fields == res.headers.size());
}

TEST_CASE("a handle kept between requests is told each new URL and timeout") {
  // One thread, so every request goes out on the same pooled handle, kept
  // without a reset after each clean answer: only what differs is set again.
  Rig rig;
  const std::vector<std::string> paths{"/repos/o/r/pulls/1", "/repos/o/r/pulls/2", "/repos/o/r/pulls/2",
                                       "/repos/o/r/issues/3"};
  for (const auto& p : paths) {
    auto res = rig.transport().perform({.url = rig.url("api.forge.test", p)});
    REQUIRE(res.ok());
    CHECK(res.hops.at(0).url == rig.url("api.forge.test", p));
  }
  // A shorter timeout on the kept handle takes effect...
  auto slow = rig.transport().perform({.url = rig.url("api.forge.test", "/slow/1000"), .timeout = milliseconds(250)});
  CHECK(slow.error.code == TransportErrc::timeout);
  auto quick = rig.transport().perform({.url = rig.url("api.forge.test", paths[0]), .timeout = milliseconds(250)});
  CHECK(quick.ok());
  // ...and so does a longer one: the default again (the forge answers after 400 ms).
  auto back = rig.transport().perform({.url = rig.url("api.forge.test", "/slow/400")});
  CHECK(back.ok());
  CHECK(back.status == 200);
  const auto got = rig.forge().truth().requests();
  REQUIRE(got.size() == paths.size() + 3);
  for (std::size_t i = 0; i < paths.size(); ++i) CHECK(got[i].target == paths[i]);
  CHECK(got.back().target == "/slow/400");
}
