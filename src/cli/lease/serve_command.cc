// forgemeter lease serve: the elector on the command line. Options are
// parsed and checked here; the campaigns, the promise and the endpoints
// are the elector room's (src/elector).
#include "cli/lease/serve_command.h"

#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/errors.h"
#include "cli/lease/duration_arg.h"
#include "cli/lease/election_options.h"
#include "cli/lease/lease_name.h"
#include "cli/lease/say.h"
#include "cli/serve_options.h"
#include "elector/elector.h"
#include "elector/routes.h"
#include "forgemeter/campaign.h"
#include "supervise/signal_watch.h"

namespace forgemeter::cli {
namespace {

struct ServeCmdArgs {
  ElectionArgs election;
  std::vector<std::string> names;
  std::string answer_validity = "1s", listen, admin_listen, admin_token_file;
  ServeArgs serve;
};

const ElectionWords& serve_words() {
  static const ElectionWords words{
      .owner_help =
          "this replica's name, as answers and GET / give it (default: the host name, which Kubernetes'\n"
          "leader-elector clients compare with their own); the store gets it tagged per process",
      .exit_on_loss_help =
          "at most one term per process: the first term lost (refused, or no renewal proven in time) ends\n"
          "lease serve with exit status 75, for an orchestrator to start it afresh (a resign is no loss)"};
  return words;
}

std::string admin_token(const ServeCmdArgs& a) {
  if (a.admin_listen.empty()) {
    if (!a.admin_token_file.empty()) throw UsageError("--admin-token-file goes with --admin-listen");
    return {};
  }
  if (a.admin_token_file.empty())
    throw UsageError("--admin-listen needs --admin-token-file: a resign must bear its token");
  std::ifstream in(a.admin_token_file);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw CommandError(fmt::format("--admin-token-file '{}' cannot be read", a.admin_token_file));
  auto token = elector::token_from_file_text(text.str());
  if (!token)
    throw UsageError(fmt::format("--admin-token-file '{}' holds no token on its first line", a.admin_token_file));
  return *token;
}

elector::ElectorOptions plan_serve(const ServeCmdArgs& a) {
  elector::ElectorOptions o;
  o.names = a.names;
  plan_election(a.election, serve_words(), o);
  o.answer_validity =
      duration_arg(a.answer_validity, "--answer-validity", std::chrono::milliseconds(1), std::chrono::hours(1));
  return o;
}

// How the process ends: a signal (the first drains and stops, a second cuts
// the stop short) or, with --exit-on-loss, a lost term.
struct Ending {
  std::stop_source quit;
  std::atomic<int> signals{0};
  std::atomic<bool> lost{false};
  std::atomic<std::int64_t> drained_at{0};
};

int run_serve(const ServeCmdArgs& a) {
  elector::ElectorOptions o = plan_serve(a);
  const std::string token = admin_token(a);
  auto store = open_election_store(a.election, o.ttl);
  Ending end;
  o.on_event = [](const LeaseEvent& e) { say(e.text); };
  o.on_loss = [&end](const std::string& name) {
    say(fmt::format("lease \"{}\": the term was lost; --exit-on-loss: exiting (status {})", name, kExitLeaseLost));
    end.lost = true;
    end.quit.request_stop();
  };
  elector::Elector elector(*store, o);
  Serving pub = start_serving(a.serve, "--listen", {a.listen}, elector::public_routes(elector),
                              [&elector] { return elector.health(); });
  std::optional<Serving> admin;
  if (!a.admin_listen.empty())
    admin.emplace(start_serving(a.serve, "--admin-listen", {a.admin_listen}, elector::admin_routes(elector, token)));
  supervise::SignalWatch signals([&](int sig) {
    if (sig == SIGHUP) {  // new certificates for new connections; the old ones keep theirs
      for (Serving* s : {&pub, admin ? &*admin : nullptr})
        if (s != nullptr)
          if (auto why = s->server->reload_tls())
            say(fmt::format("TLS not reloaded: {}; still serving the old pair", *why));
      return;
    }
    if (end.signals++ > 0) return elector.exit_now();  // a second signal: no waiting, no release
    end.drained_at = system_clock().steady_now().time_since_epoch().count();
    pub.drain();
    if (admin) admin->drain();
    end.quit.request_stop();
  });
  elector.start();
  while (!end.quit.stop_requested())
    system_clock().wait_until(system_clock().steady_now() + std::chrono::hours(1), end.quit.get_token());
  elector.stop();  // promises kept: no leader answers, the longest promise waited out, then the release
  elector.end_clients();
  const std::int64_t at = end.drained_at.load();
  const SteadyTime drained = at == 0 ? system_clock().steady_now() : SteadyTime(Duration(at));
  if (admin) admin->server->stop(std::chrono::milliseconds(0));
  pub.stop_after_delay(drained);
  return end.lost ? kExitLeaseLost : kExitOk;
}

}  // namespace

void add_lease_serve(CLI::App& lease, Action& action) {
  auto a = std::make_shared<ServeCmdArgs>();
  CLI::App* cmd = lease.add_subcommand(
      "serve",
      "Campaign for each lease NAME and answer over HTTP, for any language, whether this replica leads and for\n"
      "how long the caller may act on that answer:\n"
      "  forgemeter lease serve --store URI --listen 127.0.0.1:6060 [options] NAME...\n"
      "GET /leases/NAME answers JSON: name, holder, term (the fencing token), expiry, leader and valid_for_ms,\n"
      "how long the caller may act on it counted from when it SENT the request (0 unless leader; never past the\n"
      "term's serving window; at most --answer-validity past the answer). ?wait=30s&after=ID answers at the next\n"
      "change. GET /leases/NAME/events streams each change (Server-Sent Events, id TERM.SEQ). With one NAME,\n"
      "GET / ({\"name\": holder}, as Kubernetes' leader-elector) and GET /sse (as nais/elector) too.\n"
      "POST /leases/NAME/resign on --admin-listen only, with Authorization: Bearer and the token of\n"
      "--admin-token-file: this replica steps down and stays out one TTL.\n"
      "A promise is kept: a stop (SIGINT, SIGTERM) or a resign first stops answering leader and tells the\n"
      "streams, waits out the longest promise it handed out, then releases; a second signal exits at once\n"
      "without releasing (the lease then expires). SIGHUP re-reads --tls-cert and --tls-key.\n"
      "Exit: 0 after a signal; 75 with --exit-on-loss when a term was lost (refused, or no renewal proven in\n"
      "time); 1 when the store refuses the configuration or an address cannot be served; 2 usage.\n"
      "docs/elector.md has the endpoints, the promise and why it holds, and clients in Python and Go.");
  add_election_options(*cmd, a->election, serve_words());
  cmd->add_option("NAME", a->names, "the leases (the lane rule, as for lease run)")
      ->required()
      ->check(lease_name_rule());
  cmd->add_option("--listen", a->listen, "serve the answers on HOST:PORT or unix:PATH, e.g. 127.0.0.1:6060")
      ->required();
  cmd->add_option("--answer-validity", a->answer_validity,
                  "the longest a promise runs past its answer (default 1s, at most 1h): what a stop waits out");
  cmd->add_option("--admin-listen", a->admin_listen, "serve POST /leases/NAME/resign on HOST:PORT or unix:PATH");
  cmd->add_option("--admin-token-file", a->admin_token_file,
                  "the file whose first line is the bearer token a resign must give");
  add_serve_options(*cmd, a->serve);
  cmd->callback([a, &action] { action = [a] { return with_store_errors([&] { return run_serve(*a); }); }; });
}

}  // namespace forgemeter::cli
