// Two clients of one App behind one proxy, each minting its own tokens with
// PyGithub (Debian's python3-github, unchanged) and reading the same 100
// resources every "minute" for two token lifetimes on a fast clock (a 12 s
// lifetime; the minute, and the margin of both the clients and the proxy,
// a sixtieth of it). GitHub's ETags belong to the token that fetched them:
// each resource costs one charged read per token that reads it. With --app
// the clients share one token per lifetime and the forge charges each
// resource once per lifetime; without it, once per client per lifetime.
// Both runs are made, at once, so the test states both counts. The proxy's lines
// charge every request to the installation, never to a credential key.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "proxy_run.h"
#include "support/app_jwt_mint.h"
#include "support/process.h"
#include "support/temp_files.h"
#include "testforge/forge.h"

using namespace forgemeter;
using namespace fmtest;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t kApp = 7, kInstallation = 101;
constexpr int kResources = 100, kRounds = 120;
constexpr auto kLifetime = 12s;
constexpr double kMinute = 12.0 / 60;  // seconds: the lifetime's sixtieth, as a minute is an hour's

struct Client {
  std::set<std::string> tokens;
  std::uint64_t mints = 0, late = 0, ok = 0;
};

struct Run {
  std::vector<Client> clients;
  std::uint64_t minted = 0;   // tokens the forge minted for the installation
  std::uint64_t charged = 0;  // reads the forge answered 200 (a 304 costs nothing)
  std::string lines;
  double seconds = 0;
  std::string errors;  // the clients' stderr, when one failed (asserted on the test's thread)
  int stopped = -1;    // the proxy's exit code
};

Run run_fleet(bool equalizer) {
  testforge::ForgeOptions fo;
  fo.apps = {{.id = kApp, .public_key_pem = app_key_pair(0).public_pem, .installations = {{.id = kInstallation}}}};
  fo.token_lifetime = kLifetime;
  testforge::Forge forge(fo);
  TempDir dir;
  write_file(dir.file("public.pem"), app_key_pair(0).public_pem);
  write_file(dir.file("private.pem"), app_key_pair(0).private_pem);
  // GitHub's secondary limits count real minutes (900 points in one): the
  // fast clock's reads would be held to them, so the proxy does not avoid them.
  std::vector<std::string> extra = {"--no-secondary-limits"};
  if (equalizer) extra.insert(extra.end(), {"--app", "7=" + dir.file("public.pem"), "--app-token-margin", "200ms"});
  ProxyRun proxy(forge, extra);

  const auto started = std::chrono::steady_clock::now();
  std::vector<ProcessResult> out(2);
  {
    std::vector<std::jthread> clients;
    for (std::size_t i = 0; i < out.size(); ++i)
      clients.emplace_back([&, i] {
        out[i] = run_process(
            {debian_python(), clients_dir() + "/pygithub_app_reads.py", proxy.url() + "/lanes/reads",
             std::to_string(kApp), dir.file("private.pem"), std::to_string(kInstallation), std::to_string(kResources),
             std::to_string(kMinute), std::to_string(kRounds), std::to_string(kMinute)},
            ProcessOptions{.timeout = 120s});
      });
  }
  Run run;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (const ProcessResult& r : out) {
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    if (r.exit_code != 0 || !j.is_object()) {
      run.errors += r.err;
      continue;
    }
    Client c;
    for (const auto& t : j["tokens"]) c.tokens.insert(t.get<std::string>());
    c.mints = j["mints"].get<std::uint64_t>();
    c.late = j["late"].get<std::uint64_t>();
    c.ok = j["statuses"].value("200", std::uint64_t{0});
    run.clients.push_back(std::move(c));
  }
  run.minted = forge.tokens_minted(kInstallation);
  std::uint64_t reads = 0, not_modified = 0;
  for (const auto& r : forge.truth().requests()) reads += r.method == "GET" && r.target.starts_with("/repos/");
  for (const auto& [key, c] : forge.truth().conditionals_by_host_and_lane()) not_modified += c.not_modified;
  run.charged = reads - not_modified;
  run.stopped = proxy.stop();
  run.lines = proxy.meter_lines();
  return run;
}

}  // namespace

TEST_CASE("two clients of one App: with --app each resource is charged once per token lifetime, not once per client") {
  // Both at once, each with its own forge and proxy: half the wall time
  // (the clients mostly wait for their "minute"), the same load on each.
  Run shared, apart;
  {
    std::jthread with([&] { shared = run_fleet(true); });
    apart = run_fleet(false);
  }
  MESSAGE("with --app: " << shared.minted << " tokens minted, " << shared.charged << " reads charged, "
                         << shared.seconds << " s, late rounds " << shared.clients[0].late << "+"
                         << shared.clients[1].late);
  MESSAGE("without:    " << apart.minted << " tokens minted, " << apart.charged << " reads charged, " << apart.seconds
                         << " s, late rounds " << apart.clients[0].late << "+" << apart.clients[1].late);
  for (const Run* run : {&shared, &apart}) {
    INFO(run->errors);
    REQUIRE(run->clients.size() == 2);
    CHECK(run->stopped == 0);
  }
  for (const Run* run : {&shared, &apart})
    for (const Client& c : run->clients) CHECK(c.ok == std::uint64_t{kResources} * kRounds);  // every read answered

  // With --app both clients used the very same tokens, one per lifetime
  // spanned (the first, and one at each rotation), and each resource was
  // charged once per token.
  std::set<std::string> used = shared.clients[0].tokens;
  used.insert(shared.clients[1].tokens.begin(), shared.clients[1].tokens.end());
  CHECK(used.size() == shared.minted);
  for (const Client& c : shared.clients) CHECK(c.tokens.size() + 1 >= used.size());  // but a rotation in the last round
  // A token serves at least 10.8 s: its 12 s, less `expires_at`'s whole
  // seconds and the margin. 24 s (two lifetimes): 3 tokens, at 0, ~11 and ~22 s.
  CHECK(shared.minted <= 1 + static_cast<std::uint64_t>(shared.seconds / 10.8));
  CHECK(shared.charged == kResources * shared.minted);
  // Without, each client its own tokens: each resource charged once per client per lifetime.
  std::set<std::string> both = apart.clients[0].tokens;
  both.insert(apart.clients[1].tokens.begin(), apart.clients[1].tokens.end());
  CHECK(both.size() == apart.clients[0].tokens.size() + apart.clients[1].tokens.size());
  CHECK(apart.minted == both.size());
  CHECK(apart.charged == kResources * apart.minted);
  CHECK(apart.minted >= 2 * shared.minted - 1);

  // Every request, the mints included, charged to the installation; never to a credential key.
  INFO(shared.lines);
  CHECK(shared.lines.find("installation 101") != std::string::npos);
  CHECK(shared.lines.find("cred:") == std::string::npos);
}
