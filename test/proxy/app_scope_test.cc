// An access_tokens body's canonical scope: one spelling for one request to
// the forge, and none (forwarded untouched) for anything outside GitHub's
// shape, hostile JSON included, at a cost bounded by its length.
#include <doctest/doctest.h>

#include <string>

#include "proxy/app_scope.h"

using forgemeter::proxy::canonical_scope;
using forgemeter::proxy::kMaxScopeBody;
using forgemeter::proxy::kMaxScopeItems;

TEST_CASE("an absent, blank or empty body asks for everything: the scope {}") {
  CHECK(canonical_scope("") == "{}");
  CHECK(canonical_scope(" \r\n\t") == "{}");
  CHECK(canonical_scope("{}") == "{}");
  CHECK(canonical_scope(" { } ") == "{}");
}

TEST_CASE("keys sorted, arrays sorted and de-duplicated: one spelling for one request") {
  const auto a = canonical_scope(
      R"({"permissions":{"pull_requests":"read","contents":"write"},"repository_ids":[3,1,3],"repositories":["r","a","r"]})");
  const auto b = canonical_scope(
      R"({ "repositories": ["a", "r"], "repository_ids": [1, 3], "permissions": {"contents": "write", "pull_requests": "read"} })");
  REQUIRE(a);
  CHECK(a == b);
  CHECK(
      *a ==
      R"({"permissions":{"contents":"write","pull_requests":"read"},"repositories":["a","r"],"repository_ids":[1,3]})");
}

TEST_CASE("a narrower or different ask is a different scope") {
  const auto all = canonical_scope("{}");
  const auto one = canonical_scope(R"({"repositories":["r"]})");
  const auto two = canonical_scope(R"({"repositories":["r","s"]})");
  const auto read = canonical_scope(R"({"permissions":{"contents":"read"}})");
  const auto write = canonical_scope(R"({"permissions":{"contents":"write"}})");
  const auto none = canonical_scope(R"({"repositories":[]})");
  REQUIRE((all && one && two && read && write && none));
  CHECK(*all != *one);
  CHECK(*one != *two);
  CHECK(*read != *write);
  CHECK(*none != *all);  // what the forge makes of an empty list is its own business
}

TEST_CASE("anything outside GitHub's shape has no scope") {
  for (const char* body : {
           "null",
           "[]",
           "\"x\"",
           "7",
           "{",
           "{}}",
           "{} {}",
           "not json",
           R"({"user_id":1})",             // an unknown key
           R"({"repositories":"r"})",      // not an array
           R"({"repositories":[1]})",      // names are strings
           R"({"repositories":[""]})",     // an empty name
           R"({"repository_ids":["1"]})",  // ids are numbers
           R"({"repository_ids":[-1]})",
           R"({"repository_ids":[1.5]})",
           R"({"permissions":{"contents":1}})",          // a level is a string
           R"({"permissions":{"contents":{"x":"y"}}})",  // nesting past permissions
           R"({"permissions":[]})",
           R"({"repositories":[["r"]]})",
           R"({"repositories":["a"],"repositories":["b"]})",  // a key twice: which did the forge read?
           R"({"permissions":{"contents":"read","contents":"write"}})",
       }) {
    INFO(body);
    CHECK_FALSE(canonical_scope(body));
  }
}

TEST_CASE("hostile JSON is refused cleanly, at a bounded cost") {
  // Deep nesting ends at the second level it should not have: no recursion.
  CHECK_FALSE(canonical_scope(std::string(100'000, '[')));
  CHECK_FALSE(canonical_scope("{\"permissions\":" + std::string(60'000, '{')));
  // Past the body bound, nothing is parsed.
  CHECK_FALSE(canonical_scope(std::string(kMaxScopeBody + 1, ' ')));
  // Arrays and objects are bounded by count, strings by length.
  auto ids = [](std::size_t n) {
    std::string s = R"({"repository_ids":[)";
    for (std::size_t i = 1; i <= n; ++i) s += std::to_string(i) + (i < n ? "," : "");
    return s + "]}";
  };
  CHECK(canonical_scope(ids(kMaxScopeItems)));
  CHECK_FALSE(canonical_scope(ids(kMaxScopeItems + 1)));
  CHECK_FALSE(canonical_scope(R"({"repositories":[")" + std::string(257, 'a') + "\"]}"));
  CHECK_FALSE(canonical_scope(std::string("{\"repositories\":[\"a\\u0000\"") + "]}x"));
}
