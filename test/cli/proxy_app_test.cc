// `forgemeter proxy --app`: an installation token the forge minted for an
// App's verified JWT is handed to the next verified ask of the same App,
// installation and scope, never to anything else: a JWT signed by another
// key, expired, of another alg (none included), another App's, a narrower
// scope — each forwarded, the forge seeing it (a 401, or a mint of its own).
// Requests with a held token are charged to the installation, never a key.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "forgemeter_bin.h"
#include "proxy_run.h"
#include "support/app_jwt_mint.h"
#include "support/process.h"
#include "support/temp_files.h"
#include "testforge/forge.h"

using namespace forgemeter;
using namespace fmtest;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t kApp = 7, kOtherApp = 8, kInstallation = 101, kOtherInstallation = 102;

struct Answer {
  int status = 0;
  std::string head, body;
  std::string token() const {
    const auto j = nlohmann::json::parse(body, nullptr, false);
    return j.is_object() && j.contains("token") && j["token"].is_string() ? j["token"].get<std::string>() : "";
  }
};

// One request through curl: its status, head and body.
Answer curl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {find_on_path("curl"), "-sS", "-D", "-"};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto r = run_process(argv);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  Answer a;
  const std::size_t end = r.out.find("\r\n\r\n");
  a.head = r.out.substr(0, end);
  a.body = end == std::string::npos ? "" : r.out.substr(end + 4);
  a.status = std::stoi(a.head.substr(a.head.find(' ') + 1, 3));
  return a;
}

// POST /app/installations/{installation}/access_tokens with `jwt` and `body` ("" = none).
Answer ask(const ProxyRun& proxy, std::uint64_t installation, const std::string& jwt, const std::string& body = "") {
  std::vector<std::string> args = {
      "-X", "POST", "-H", "Authorization: Bearer " + jwt, "-H", "Accept: application/vnd.github+json"};
  if (!body.empty()) args.insert(args.end(), {"-H", "Content-Type: application/json", "--data-binary", body});
  args.push_back(proxy.url() + "/app/installations/" + std::to_string(installation) + "/access_tokens");
  return curl(args);
}

// A valid JWT of `app`, signed with key pair `key`.
std::string jwt_of(std::uint64_t app, int key = 0, std::string_view alg = "RS256") {
  const std::int64_t now = unix_now();
  return mint(app, app_key_pair(key).private_pem, now - 30, now + 540, alg);
}

// The requests for access tokens that reached the forge.
std::size_t asks_seen(testforge::Forge& forge) {
  std::size_t n = 0;
  for (const auto& r : forge.truth().requests()) n += r.target.ends_with("/access_tokens");
  return n;
}

testforge::ForgeOptions app_forge() {
  testforge::ForgeOptions o;
  o.apps = {
      {.id = kApp, .public_key_pem = app_key_pair(0).public_pem, .installations = {{.id = kInstallation}}},
      {.id = kOtherApp, .public_key_pem = app_key_pair(1).public_pem, .installations = {{.id = kOtherInstallation}}}};
  return o;
}

}  // namespace

TEST_CASE(
    "a verified ask of the same App, installation and scope gets the held token; requests with it are charged "
    "to the installation") {
  testforge::Forge forge(app_forge());
  TempDir keys;
  write_file(keys.file("7.pem"), app_key_pair(0).public_pem);
  ProxyRun proxy(forge, {"--app", "7=" + keys.file("7.pem")});

  const Answer minted = ask(proxy, kInstallation, jwt_of(kApp));
  REQUIRE(minted.status == 201);
  CHECK(minted.head.find("fwd=") != std::string::npos);  // forwarded: the cache's word
  const Answer shared = ask(proxy, kInstallation, jwt_of(kApp), "{}");
  CHECK(shared.status == 201);
  CHECK(shared.token() == minted.token());
  CHECK(shared.head.find("Cache-Status: forgemeter; hit; detail=app-token") != std::string::npos);
  CHECK(forge.tokens_minted(kInstallation) == 1);
  CHECK(asks_seen(forge) == 1);

  // The token reads; its requests are charged to installation 101.
  const Answer read = curl({"-H", "Authorization: token " + shared.token(), proxy.url() + "/repos/o/r/issues/1"});
  CHECK(read.status == 200);
  const std::string metrics = curl({proxy.admin() + "/metrics"}).body;
  CHECK(metrics.find(R"(forgemeter_proxy_app_tokens_total{outcome="shared"} 1)") != std::string::npos);
  CHECK(metrics.find(R"(forgemeter_proxy_app_tokens_total{outcome="minted"} 1)") != std::string::npos);
  CHECK(proxy.access_log().find(R"("cache":"app_token")") != std::string::npos);

  // DELETE /installation/token with the held token forgets it: the next ask mints.
  const Answer deleted =
      curl({"-X", "DELETE", "-H", "Authorization: token " + shared.token(), proxy.url() + "/installation/token"});
  CHECK(deleted.status == 204);
  const Answer again = ask(proxy, kInstallation, jwt_of(kApp));
  CHECK(again.status == 201);
  CHECK(again.token() != minted.token());
  CHECK(forge.tokens_minted(kInstallation) == 2);

  REQUIRE(proxy.stop() == 0);
  const std::string lines = proxy.meter_lines();
  INFO(lines);
  CHECK(lines.find("installation 101") != std::string::npos);
  CHECK(lines.find("cred:") == std::string::npos);
}

TEST_CASE("never answered from the held token: another key, expired, another alg, another App, a narrower scope") {
  testforge::Forge forge(app_forge());
  TempDir keys;
  write_file(keys.file("7.pem"), app_key_pair(0).public_pem);
  write_file(keys.file("8.pem"), app_key_pair(1).public_pem);
  ProxyRun proxy(forge, {"--app", "7=" + keys.file("7.pem"), "--app", "8=" + keys.file("8.pem")});
  const std::string held = ask(proxy, kInstallation, jwt_of(kApp)).token();
  REQUIRE(!held.empty());
  REQUIRE(ask(proxy, kInstallation, jwt_of(kApp)).token() == held);  // held, and shared
  const std::int64_t now = unix_now();

  struct Case {
    const char* what;
    std::string jwt;
    std::string body;
    int status;  // what the forge answers it
  };
  const std::vector<Case> cases = {
      {"a JWT signed by another key", mint(kApp, app_key_pair(1).private_pem, now - 30, now + 540), "", 401},
      {"an expired JWT", mint(kApp, app_key_pair(0).private_pem, now - 700, now - 100), "", 401},
      {"alg none", jwt_of(kApp, 0, "none"), "", 401},
      {"alg RS512", jwt_of(kApp, 0, "RS512"), "", 401},
      {"alg HS256 keyed with the public key", jwt_of(kApp, 0, "HS256"), "", 401},
      {"another App's JWT", jwt_of(kOtherApp, 1), "", 404},
      {"a narrower scope", jwt_of(kApp), R"({"repositories":["r"]})", 201},
      {"fewer permissions", jwt_of(kApp), R"({"permissions":{"contents":"read"}})", 201},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const std::size_t seen = asks_seen(forge);
    const Answer a = ask(proxy, kInstallation, c.jwt, c.body);
    CHECK(a.status == c.status);
    CHECK(a.body.find(held) == std::string::npos);
    CHECK(a.head.find("detail=app-token") == std::string::npos);
    CHECK(asks_seen(forge) == seen + 1);  // the forge saw it
  }
  CHECK(forge.tokens_minted(kInstallation) == 3);  // the first and the two narrower scopes
  const std::string metrics = curl({proxy.admin() + "/metrics"}).body;
  CHECK(metrics.find(R"(forgemeter_proxy_app_tokens_total{outcome="shared"} 1)") != std::string::npos);
}

TEST_CASE("without --app nothing is held: every ask is forwarded") {
  testforge::Forge forge(app_forge());
  ProxyRun proxy(forge);
  const Answer a = ask(proxy, kInstallation, jwt_of(kApp));
  const Answer b = ask(proxy, kInstallation, jwt_of(kApp));
  CHECK(a.status == 201);
  CHECK(b.status == 201);
  CHECK(a.token() != b.token());
  CHECK(forge.tokens_minted(kInstallation) == 2);
}

TEST_CASE("--app refuses a bad ID, an unreadable file, a private key, a non-RSA key, with the reason") {
  testforge::Forge forge;
  TempDir dir;
  write_file(dir.file("private.pem"), app_key_pair(0).private_pem);
  // An EC key, made here as an App's would be (openssl, Debian's).
  const auto ec =
      run_process({find_on_path("openssl"), "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"});
  REQUIRE(ec.exit_code == 0);
  const auto ec_public = run_process({find_on_path("openssl"), "pkey", "-pubout"}, ProcessOptions{ec.out});
  REQUIRE(ec_public.exit_code == 0);
  write_file(dir.file("ec.pem"), ec_public.out);
  const struct {
    std::string app, says;
    int code;
  } cases[] = {
      {"x=" + dir.file("private.pem"), "the App ID is a whole number", 2},
      {"7", "give ID=PUBLIC_KEY_FILE", 2},
      {"7=" + dir.file("missing.pem"), "cannot be read", 1},
      {"7=" + dir.file("private.pem"), "private key", 2},
      {"7=" + dir.file("ec.pem"), "not a PEM RSA public key", 2},
  };
  for (const auto& c : cases) {
    INFO(c.app);
    const auto r =
        run_process({forgemeter_bin(), "proxy", "--upstream", "http://127.0.0.1:" + std::to_string(forge.port()),
                     "--listen", "127.0.0.1:0", "--app", c.app});
    CHECK(r.exit_code == c.code);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
}
