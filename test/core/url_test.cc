#include <doctest/doctest.h>

#include "forgemeter/url.h"

using forgemeter::Api;

TEST_CASE("host_of: lower-cased, port kept only when named, user info dropped") {
  CHECK(forgemeter::host_of("https://API.GitHub.com/repos/o/r") == "api.github.com");
  CHECK(forgemeter::host_of("https://api.github.com:8443/x?y#z") == "api.github.com:8443");
  CHECK(forgemeter::host_of("http://user:pw@Example.test:80") == "example.test:80");
  CHECK(forgemeter::host_of("http://[::1]:9000/graphql") == "[::1]:9000");
  CHECK(forgemeter::host_of("") == "");
}

TEST_CASE("api classification: only /graphql and /api/graphql, trailing slashes trimmed") {
  CHECK(forgemeter::api_of_url("https://api.github.com/graphql") == Api::graphql);
  CHECK(forgemeter::api_of_url("https://api.github.com/graphql/") == Api::graphql);
  CHECK(forgemeter::api_of_url("https://ghe.test/api/graphql//") == Api::graphql);
  CHECK(forgemeter::api_of_url("https://ghe.test/api/graphql?x=1") == Api::graphql);
  CHECK(forgemeter::api_of_url("https://api.github.com/repos/o/graphql") == Api::rest);
  CHECK(forgemeter::api_of_url("https://api.github.com/repos/o/r/contents/graphql") == Api::rest);
  CHECK(forgemeter::api_of_url("https://api.github.com/") == Api::rest);
  CHECK(forgemeter::api_of_url("https://api.github.com") == Api::rest);
  CHECK(forgemeter::path_of("https://h/a/b?q") == "/a/b");
  CHECK(forgemeter::to_string(Api::graphql) == "graphql");
}

TEST_CASE("resource_of_path: the GitHub bucket a path is expected to spend") {
  using forgemeter::resource_of_path;
  CHECK(resource_of_path("/repos/o/r/pulls/1") == "core");
  CHECK(resource_of_path("/graphql") == "graphql");
  CHECK(resource_of_path("/api/graphql/") == "graphql");
  CHECK(resource_of_path("/search/issues") == "search");
  CHECK(resource_of_path("/search/code") == "code_search");
  CHECK(resource_of_path("/search/code/") == "code_search");
  CHECK(resource_of_path("/api/v3/search/code") == "code_search");
  CHECK(resource_of_path("/api/v3/search/commits") == "search");
  CHECK(resource_of_path("/search") == "core");
  CHECK(resource_of_path("/repos/o/search/issues") == "core");
}
