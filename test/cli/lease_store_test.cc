// `lease run` / `lease status` and their store: a configuration that can
// never work exits 1 at once with the store's message; a store that is down
// is retried; the store can be given without a password on the command line;
// no password is ever printed. A private PostgreSQL with scram-sha-256 for the
// role fm_pw (the suite's server trusts everyone on 127.0.0.1).
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>

#include <memory>

#include "forgemeter_bin.h"
#include "support/eventually.h"
#include "support/free_port.h"
#include "support/pg_env.h"
#include "support/pg_instance.h"

using namespace fmtest;
using namespace std::chrono;

namespace {

const std::string kPassword = "Pw-7f3a9c-secret";

// The private server, started once for the file; nullptr when skipped.
struct PasswordServer {
  fmtest::PrivatePg pg;
  std::string base;  // without user and password

  PasswordServer() : base("host=127.0.0.1 port=" + std::to_string(pg.port()) + " dbname=postgres") {
    fmtest::PgSession s(pg.conninfo());
    if (!s.connected()) throw std::runtime_error("private server: " + s.error());
    auto ok = [&](const std::string& sql) {
      if (!s.exec(sql)) throw std::runtime_error(sql + ": " + s.error());
    };
    ok("CREATE ROLE fm_pw LOGIN PASSWORD '" + kPassword + "'");
    ok("GRANT CREATE ON SCHEMA public TO fm_pw");                   // the store creates its tables
    ok("CREATE ROLE fm_guest LOGIN PASSWORD '" + kPassword + "'");  // may neither create nor use them
    auto hba = s.exec("SHOW hba_file");
    if (!hba || hba->empty()) throw std::runtime_error("SHOW hba_file: " + s.error());
    // postgres and fm_nobody (no such role) are trusted, everyone else gives a password.
    ok("COPY (SELECT unnest(ARRAY['local all all trust', 'host all postgres,fm_nobody 127.0.0.1/32 trust', "
       "'host all all 127.0.0.1/32 scram-sha-256'])) TO '" +
       *hba->front()[0] + "'");
    ok("SELECT pg_reload_conf()");
    // The reload is asynchronous: await the first refused wrong password.
    if (!fmtest::eventually([&] { return !fmtest::PgSession(base + " user=fm_pw password=wrong").connected(); }))
      throw std::runtime_error("the server never asked fm_pw for a password");
  }
  std::string store(const std::string& password) const { return base + " user=fm_pw password=" + password; }
};

PasswordServer* server() {
  static std::unique_ptr<PasswordServer> s;
  if (!s && !fmtest::pg_skip_requested()) s = std::make_unique<PasswordServer>();
  return s.get();
}

std::string lease_name() {
  return "cli-store-" + std::to_string(getpid()) + "-" + std::to_string(steady_clock::now().time_since_epoch().count());
}

struct Timed {
  ProcessResult r;
  double seconds = 0;
};

Timed timed(const std::vector<std::string>& argv, const ProcessOptions& o = {}) {
  auto t0 = steady_clock::now();
  Timed t{run_process(argv, o), 0};
  t.seconds = duration<double>(steady_clock::now() - t0).count();
  return t;
}

std::vector<std::string> run_argv(const std::vector<std::string>& store_args) {
  std::vector<std::string> v{forgemeter_bin(), "lease", "run"};
  v.insert(v.end(), store_args.begin(), store_args.end());
  for (std::string a : {"--name", "n", "--ttl", "90s", "--", "true"}) v.push_back(a);  // retry: 30 s
  return v;
}

std::vector<std::string> status_argv(const std::vector<std::string>& store_args) {
  std::vector<std::string> v{forgemeter_bin(), "lease", "status"};
  v.insert(v.end(), store_args.begin(), store_args.end());
  v.push_back("n");
  return v;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// Exit 1 within 5 s (the retry is 30 s) with `message`, for run and status alike; `secret` never printed.
void check_refused(const std::vector<std::string>& store_args, const std::string& message, const std::string& secret) {
  for (const auto& argv : {run_argv(store_args), status_argv(store_args)}) {
    Timed t = timed(argv);
    INFO(argv[2] << ": " << t.r.err);
    CHECK(t.r.exit_code == 1);
    CHECK(t.seconds < 5.0);
    CHECK(has(t.r.err, message));
    CHECK(has(t.r.err, "retrying cannot help") == (argv[2] == "run"));
    CHECK_FALSE(has(t.r.err + t.r.out, secret));
  }
}

}  // namespace

TEST_CASE("a store that can never work: lease run and lease status exit 1 at once with the store's message") {
  PasswordServer* pw = server();
  if (pw == nullptr) return;
  SUBCASE("wrong password") {
    check_refused({"--store", pw->store("Wrong-3b1d")}, "28P01: password authentication failed for user \"fm_pw\"",
                  "Wrong-3b1d");
  }
  SUBCASE("no such database") {
    check_refused({"--store", "host=127.0.0.1 port=" + std::to_string(pw->pg.port()) + " user=postgres dbname=fm_nope"},
                  "3D000: database \"fm_nope\" does not exist", "\x01");
  }
  SUBCASE("no such role") {
    check_refused(
        {"--store", "host=127.0.0.1 port=" + std::to_string(pw->pg.port()) + " user=fm_nobody dbname=postgres"},
        "28000: role \"fm_nobody\" does not exist", "\x01");
  }
  SUBCASE("no password given where one is required") {
    check_refused({"--store", pw->base + " user=fm_pw"}, "no password supplied", "\x01");
  }
  SUBCASE("a role that may neither create the store's tables nor use them") {
    fmtest::PgSession admin(pw->pg.conninfo());
    const std::string guest = pw->base + " user=fm_guest password=" + kPassword;
    REQUIRE(admin.exec("DROP TABLE IF EXISTS forgemeter_leases, forgemeter_leases_terms"));
    check_refused({"--store", guest}, "may not create the lease tables forgemeter_leases and forgemeter_leases_terms",
                  kPassword);
    auto made = run_process(status_argv({"--store", pw->store(kPassword)}));  // fm_pw creates them
    REQUIRE(made.exit_code == 0);
    check_refused({"--store", guest}, "may not read and write the lease tables", kPassword);
  }
  SUBCASE("an unknown connection option") {
    check_refused({"--store", pw->base + " colour=blue user=fm_pw password=" + kPassword},
                  "invalid connection option \"colour\"", kPassword);
    // After password=, a word libpq does not know may be the rest of a password with a space: hidden too.
    check_refused({"--store", pw->base + " user=fm_pw password=" + kPassword + " colour=blue"},
                  "invalid connection option \"***\"", kPassword);
  }
  SUBCASE("a malformed URI: libpq quotes the broken token, which is the password") {
    check_refused({"--store", "postgresql://fm_pw:Pa%zzword@127.0.0.1:" + std::to_string(pw->pg.port()) + "/postgres"},
                  "invalid percent-encoded token: \"***\"", "zzword");
  }
  SUBCASE("a password with a space, unquoted: libpq quotes its second half") {
    check_refused({"--store", pw->base + " user=fm_pw password=Half one-more-Half"}, "missing \"=\" after \"***\"",
                  "one-more-Half");
  }
}

TEST_CASE("a store that is down is retried until forgemeter is stopped") {
  const int port = fmtest::free_loopback_port();  // nothing listens there: connection refused
  REQUIRE(port > 0);
  TempDir dir;
  const std::string err = dir.file("err");
  auto p = spawn_process({forgemeter_bin(), "lease", "run", "--store",
                          "host=127.0.0.1 port=" + std::to_string(port) + " user=postgres dbname=postgres", "--name",
                          lease_name(), "--ttl", "3s", "--", "true"},
                         dir.file("out"), err);
  REQUIRE(fmtest::eventually([&] { return has(read_file(err), "cannot reach the lease store"); }, seconds(10)));
  CHECK(wait_exit(p.pid, milliseconds(2500)) == -1);  // still campaigning through 2 more retries (1 s each)
  kill(p.pid, SIGTERM);
  CHECK(wait_exit(p.pid, seconds(10)) == 128 + SIGTERM);  // CMD never started
  CHECK(has(read_file(err), "Connection refused"));
}

TEST_CASE("the store without a password on the command line: FORGEMETER_STORE, --store-file, PGPASSFILE") {
  PasswordServer* pw = server();
  if (pw == nullptr) return;
  TempDir dir;
  const std::string name = lease_name();
  // CMD sees its lease, never the store.
  const std::vector<std::string> cmd{"--name", name, "--ttl", "3s",
                                     "--",     "sh", "-c",    "echo \"[$FORGEMETER_STORE] $FORGEMETER_LEASE_TERM\""};
  auto lease_run = [&](std::vector<std::string> store_args, const ProcessOptions& o = {}) {
    std::vector<std::string> argv{forgemeter_bin(), "lease", "run"};
    argv.insert(argv.end(), store_args.begin(), store_args.end());
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    auto r = run_process(argv, o);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(has(r.out, "[] "));
    CHECK_FALSE(has(r.err, "warning"));
    CHECK_FALSE(has(r.err + r.out, kPassword));
    return r;
  };

  SUBCASE("FORGEMETER_STORE") {
    ProcessOptions env{.env = {{"FORGEMETER_STORE", pw->store(kPassword)}}};
    lease_run({}, env);
    auto status = run_process({forgemeter_bin(), "lease", "status", name}, env);
    CHECK(status.exit_code == 0);
    CHECK(has(status.out, "free (term"));
  }
  SUBCASE("--store-file: the first line, trimmed; refused while group or others may read it") {
    const std::string file = dir.file("store");
    write_file(file, "  " + pw->store(kPassword) + "  \nignored second line\n");
    ::chmod(file.c_str(), 0600);
    lease_run({"--store-file", file});
    ::chmod(file.c_str(), 0640);
    for (const auto& argv : {run_argv({"--store-file", file}), status_argv({"--store-file", file})}) {
      auto r = run_process(argv);
      CHECK(r.exit_code == 1);
      CHECK(has(r.err, "permissions 0640 are too open"));
      CHECK(has(r.err, "chmod 600 " + file));
      CHECK_FALSE(has(r.err, kPassword));
    }
    auto both = run_process(run_argv({"--store-file", file, "--store", "memory:"}));
    CHECK(both.exit_code == 2);  // one or the other
  }
  SUBCASE("libpq's PGPASSFILE and PGPASSWORD") {
    const std::string pass = dir.file("pgpass");
    write_file(pass, "127.0.0.1:" + std::to_string(pw->pg.port()) + ":*:fm_pw:" + kPassword + "\n");
    ::chmod(pass.c_str(), 0600);
    lease_run({"--store", pw->base + " user=fm_pw"}, {.env = {{"PGPASSFILE", pass}}});
    lease_run({"--store", pw->base + " user=fm_pw"}, {.env = {{"PGPASSWORD", kPassword}}});
  }
  SUBCASE("no store at all is a usage error") {
    auto r = run_process({forgemeter_bin(), "lease", "run", "--name", "n", "--", "true"},
                         {.env = {{"FORGEMETER_STORE", ""}}});
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "FORGEMETER_STORE"));
  }
}

TEST_CASE("a password on the command line: one warning line, and the password in no output") {
  PasswordServer* pw = server();
  if (pw == nullptr) return;
  const std::string port = std::to_string(pw->pg.port());
  for (const std::string& store : {pw->store(kPassword), pw->store("'" + kPassword + "'"),
                                   "postgresql://fm_pw:" + kPassword + "@127.0.0.1:" + port + "/postgres",
                                   "postgresql://fm_pw@127.0.0.1:" + port + "/postgres?password=" + kPassword}) {
    INFO(store);
    const std::string name = lease_name();
    auto run = run_process({forgemeter_bin(), "lease", "run", "--store", store, "--name", name, "--ttl", "3s", "--",
                            "sh", "-c", "exit 0"});
    CHECK(run.exit_code == 0);
    CHECK(has(run.err, "elected"));
    std::size_t warnings = 0;
    for (std::size_t at = run.err.find("warning: --store carries a password"); at != std::string::npos;
         at = run.err.find("warning: --store carries a password", at + 1))
      ++warnings;
    CHECK(warnings == 1);
    CHECK(has(run.err, "use FORGEMETER_STORE, --store-file FILE or PGPASSFILE"));
    auto status = run_process({forgemeter_bin(), "lease", "status", "--json", "--store", store, name});
    CHECK_MESSAGE(status.exit_code == 0, "lease status said: " << status.err);  // scrubbed: no password
    for (const auto& text : {run.err, run.out, status.err, status.out}) CHECK_FALSE(has(text, kPassword));
  }
  // A parse error of CLI11 names the stray word: a password split off by missing quotes.
  auto split = run_process({forgemeter_bin(), "lease", "status", "--store", pw->base, "password=" + kPassword, "n"});
  CHECK(split.exit_code == 2);
  CHECK_FALSE(has(split.err, kPassword));
}

TEST_CASE("a password in --store: masked in `ps` of forgemeter and its sentinel; CMD inherits no store secret") {
  PasswordServer* pw = server();
  if (pw == nullptr) return;
  TempDir dir;
  const std::string seen = dir.file("seen"), port = std::to_string(pw->pg.port());
  // CMD writes what `ps` shows of its parent and of its parent's children (itself and the
  // sentinel), one line each, then the store's secret variables as it got them.
  const std::string script =
      "for p in $PPID $(cat /proc/$PPID/task/*/children); do tr '\\0' ' ' < /proc/$p/cmdline; echo; done > \"$1\"; "
      "echo \"env [$FORGEMETER_STORE$PGPASSWORD$PGPASSFILE$ETCDCTL_PASSWORD$ETCDCTL_USER]\" >> \"$1\"";
  const ProcessOptions env{.env = {{"FORGEMETER_STORE", pw->store(kPassword)},
                                   {"PGPASSWORD", kPassword},
                                   {"PGPASSFILE", dir.file("pgpass")},
                                   {"ETCDCTL_PASSWORD", kPassword},
                                   {"ETCDCTL_USER", "root:" + kPassword}}};
  for (const std::vector<std::string>& store :
       {std::vector<std::string>{"--store", pw->store(kPassword)},
        std::vector<std::string>{"--store=postgresql://fm_pw:" + kPassword + "@127.0.0.1:" + port + "/postgres"}}) {
    std::vector<std::string> argv{forgemeter_bin(), "lease", "run"};
    argv.insert(argv.end(), store.begin(), store.end());
    const std::vector<std::string> rest{"--name", lease_name(), "--ttl", "3s", "--", "sh", "-c", script, "sh", seen};
    argv.insert(argv.end(), rest.begin(), rest.end());
    auto r = run_process(argv, env);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::string shown = read_file(seen);
    INFO(shown);
    std::size_t ours = 0;  // forgemeter's line and its sentinel's
    for (std::size_t at = shown.find("lease run"); at != std::string::npos; at = shown.find("lease run", at + 1))
      ++ours;
    CHECK(ours == 2);
    CHECK_FALSE(has(shown, kPassword));
    CHECK((has(shown, "password=*** ") || has(shown, "fm_pw:***@127.0.0.1")));
    CHECK(has(shown, "env []\n"));
  }
}
