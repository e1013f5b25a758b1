// A real GitHub App client, unchanged: PyGithub (Debian's python3-github
// 1.55) builds its own JWT (RS256, iat now, exp now + 60 s, iss a number),
// trades it for an installation token at the loopback forge, and reads a
// repository with the token as that installation.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "support/app_jwt_mint.h"
#include "support/process.h"
#include "support/temp_files.h"
#include "testforge/forge.h"

using namespace forgemeter;
using nlohmann::json;

TEST_CASE("app forge: PyGithub's GithubIntegration mints a token and reads with it") {
  testforge::ForgeOptions o;  // the real clock: PyGithub mints its JWT on it
  o.apps = {{77, fmtest::app_key_pair(0).public_pem, {{.id = 7001, .account = "octo", .repositories = {"hello"}}}}};
  testforge::Forge forge(o);
  fmtest::TempDir dir;
  fmtest::write_file(dir.file("app.pem"), fmtest::app_key_pair(0).private_pem);
  const std::string base = "http://127.0.0.1:" + std::to_string(forge.port());
  const auto run = fmtest::run_process({"/usr/bin/python3", std::string(FM_TEST_CLIENTS) + "/pygithub_app_token.py",
                                        base, "77", dir.file("app.pem"), "7001", "octo/hello"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const json out = json::parse(run.out);
  CHECK(out["repo"] == "octo/hello");
  const std::string token = out["token"];
  CHECK(token.starts_with("ghs_"));
  CHECK(forge.tokens_minted(7001) == 1);
  // The read went as the installation, with the token PyGithub was given.
  const auto truth = forge.truth().by_installation_and_resource();
  CHECK(truth.at({0, "app"}) == 1);
  CHECK(truth.at({7001, "core"}) == 1);
  const auto requests = forge.truth().requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].header("Authorization").starts_with("Bearer ey"));
  CHECK(requests[1].header("Authorization") == "token " + token);
  CHECK(forge.budgets().peek(7001, "core", forge.clock().now()).used == 1);
}
