// forgemeter lease run | status | resign: a command that runs only while this process
// holds a lease, and what a lease looks like now. The timing (and why CMD is
// gone before the store could hand the lease on) is in docs/cli.md.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/errors.h"
#include "cli/lease/duration_arg.h"
#include "cli/lease/lease_name.h"
#include "cli/lease/resign.h"
#include "cli/lease/say.h"
#include "cli/lease/serve_command.h"
#include "cli/lease/status.h"
#include "cli/lease/store_options.h"
#include "cli/lease/term.h"
#include "cli/serve_options.h"
#include "core/duration_text.h"
#include "forgemeter/campaign.h"
#include "lease/uri/open_store.h"
#include "lease/uri/store_check.h"
#include "serve/metrics_route.h"
#include "supervise/command_tree.h"
#include "supervise/signal_watch.h"

namespace forgemeter::cli {

namespace {

using core_detail::duration_text;
using lease_uri::check_store_kind;
using lease_uri::open_store;
using lease_uri::require_workable_store;
using supervise::SignalWatch;
using supervise::unrunnable;

struct RunArgs {
  StoreOptions store;
  std::string name, owner, ttl = "90s", retry, grace, serve_for, metrics_addr;
  std::vector<std::string> cmd;
  ServeArgs serve;
};

// --metrics-addr: /metrics and the probes while lease run runs. On the first
// SIGINT/SIGTERM/SIGHUP /readyz turns 503; when lease run is done the server
// stays for what is left of --shutdown-delay, then stops (--shutdown-grace).
class MetricsEndpoint {
 public:
  MetricsEndpoint(const RunArgs& a, const LeaseMetrics& metrics)
      : serving_(start_serving(a.serve, "--metrics-addr", {a.metrics_addr},
                               serve::metrics_route([&metrics] { return metrics.prometheus(); }),
                               [&metrics] { return metrics.health(); })) {}
  ~MetricsEndpoint() {
    const std::int64_t at = drained_at_.load();
    serving_.stop_after_delay(at == 0 ? system_clock().steady_now() : SteadyTime(Duration(at)));
  }
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  void drain() {
    std::int64_t none = 0;
    if (drained_at_.compare_exchange_strong(none, system_clock().steady_now().time_since_epoch().count()))
      serving_.drain();
  }

 private:
  Serving serving_;
  std::atomic<std::int64_t> drained_at_{0};  // steady nanoseconds of the first signal; 0: none yet
};

// SIGINT/SIGTERM/SIGHUP (taken on a thread of their own: construct before
// any thread starts) go to the tree's supervisor while CMD runs, else stop the
// campaign. A second one also cuts the release short (docs/lease-stop.md).
void on_signal(Supervision& s, int sig) {
  std::lock_guard lock(s.mu);
  if (s.signal == 0)
    s.signal = sig;
  else
    s.exit_now.request_stop();
  if (s.tree != nullptr) {
    s.to_forward = sig;  // the term's thread sends it to the whole tree
    s.tree->wake();
  } else {
    s.campaign.request_stop();
  }
}

// The campaign's spec from the options (UsageError when they do not hold
// together), and CMD's grace.
struct RunPlan {
  CampaignSpec spec;
  Duration grace{};
};

RunPlan plan_run(const RunArgs& a) {
  RunPlan p;
  CampaignSpec& spec = p.spec;
  spec.name = a.name;
  spec.owner = a.owner.empty() ? make_owner_id() : a.owner;
  spec.ttl = duration_arg(a.ttl, "--ttl", kMinCampaignTtl, kMaxCampaignTtl);
  spec.retry = a.retry.empty() ? spec.ttl / 3 : duration_arg(a.retry, "--retry");
  if (!a.serve_for.empty()) spec.serve_for = duration_arg(a.serve_for, "--serve-for");
  p.grace =
      a.grace.empty() ? std::min<Duration>(std::chrono::seconds(10), spec.ttl / 6) : duration_arg(a.grace, "--grace");
  if (p.grace > spec.ttl / 6)
    throw UsageError(
        fmt::format("--grace {} is more than TTL/6 ({}): CMD could outlive the lease; use a shorter "
                    "--grace or a longer --ttl",
                    a.grace, duration_text(spec.ttl / 6)));
  if (auto why = check_campaign_spec(spec)) throw UsageError(*why);
  return p;
}

// Campaigns, serving each term won, until the campaign ends; after an
// operator's `lease resign` (not a failure) it stays out one TTL, so that
// leadership moves on instead of bouncing back, then campaigns again. A
// signal ends it as one before any term (exit 128 + signal).
CampaignEnd campaign_terms(LeaseStore& store, const CampaignSpec& spec, Supervision& s, const TermPlan& plan,
                           std::atomic<bool>& resigned) {
  for (;;) {
    const CampaignEnd end =
        campaign(store, spec, s.campaign.get_token(), [&](Term& term) { serve_term(term, s, plan); });
    if (end != CampaignEnd::term_ended || !resigned.exchange(false)) return end;
    {
      std::lock_guard lock(s.mu);
      s.ran = false;
    }
    system_clock().wait_until(system_clock().steady_now() + spec.ttl, s.campaign.get_token());
    if (s.campaign.stop_requested()) return end;
  }
}

// `lease run`'s exit code once the campaign ended: CMD's, 128 + a signal that
// came before it ran, or 1 when the term ended before CMD did.
int exit_code(Supervision& s, const std::string& name, const std::string& cmd, CampaignEnd end) {
  std::lock_guard lock(s.mu);
  if (!s.ran) {
    if (s.signal != 0) return 128 + s.signal;
    say(fmt::format("lease \"{}\": the term ended before {} started ({})", name, cmd, to_string(end)));
    return kExitFailure;
  }
  if (s.ended_by_term && s.signal == 0) {
    say(fmt::format("lease \"{}\": the term ended, {} was stopped (status {}); exiting so a supervisor can restart",
                    name, cmd, s.status));
    return kExitFailure;
  }
  return s.status;
}

int run_lease(const RunArgs& a) {
  const std::string store_text = cli::store_text(a.store);
  RunPlan p = plan_run(a);
  CampaignSpec& spec = p.spec;
  LeaseMetrics metrics;
  std::optional<MetricsEndpoint> served;  // bound before anything else: a bad address or a port in use, up front
  if (!a.metrics_addr.empty()) {
    spec.metrics = &metrics;
    served.emplace(a, metrics);
  }
  if (const auto no = unrunnable(a.cmd.at(0))) {  // exit 127 or 126, as env, timeout and shells
    say(fmt::format("cannot run '{}': {}; check the command and PATH", a.cmd[0], no->why));
    return no->code;
  }
  check_store_kind(store_text);
  const auto check_bound = std::min<Duration>(std::chrono::seconds(10), spec.ttl / 3);
  require_workable_store(store_text, std::chrono::duration_cast<std::chrono::milliseconds>(check_bound),
                         /*would_retry=*/true);
  auto store = open_store(store_text);
  spec.on_loss = OnLoss::stop;
  std::atomic<bool> resigned{false};
  spec.on_event = [&resigned](const LeaseEvent& e) {
    if (e.kind == LeaseEvent::Kind::resigned) resigned = true;
    say(e.text);
  };

  Supervision s;
  spec.exit_now = s.exit_now.get_token();
  SignalWatch signals([&s, &served](int sig) {
    if (served) served->drain();
    on_signal(s, sig);
  });
  const CampaignEnd end = campaign_terms(*store, spec, s, TermPlan{a.cmd, spec.name, spec.owner, p.grace}, resigned);
  return exit_code(s, spec.name, a.cmd[0], end);
}

}  // namespace

void add_lease(CLI::App& root, Action& action) {
  CLI::App* lease = root.add_subcommand(
      "lease",
      "Run a command on one replica at a time, under a lease; inspect a lease; ask its holder to step down;\n"
      "serve leadership over HTTP.");
  lease->require_subcommand(1);

  auto a = std::make_shared<RunArgs>();
  CLI::App* run = lease->add_subcommand(
      "run",
      "Campaign for the lease NAME and run CMD only while this process holds it (fail-closed):\n"
      "  forgemeter lease run [options] NAME -- CMD [ARGS...]\n"
      "NAME follows the lane rule (1-63 bytes of [a-z0-9._-], starting with a letter or digit, not 'other'),\n"
      "so a service's elect() on that lane shares the lease.\n"
      "CMD gets FORGEMETER_LEASE_NAME, FORGEMETER_LEASE_OWNER and FORGEMETER_LEASE_TERM (the fencing token).\n"
      "CMD and every process it starts are one tree: when the term ends the tree gets SIGTERM, then SIGKILL\n"
      "after --grace, before the store could hand the lease on; SIGINT/SIGTERM/SIGHUP to forgemeter stop it\n"
      "the same way; when CMD exits, what is left of its tree is stopped the same way; the lease is released\n"
      "once none of it is left (waiting up to TTL/3 for a slow store; a second signal exits without waiting). If "
      "forgemeter dies, or stalls past the term's deadline, a sentinel process\n"
      "SIGKILLs the tree's process group. Exit: CMD's status when it exits by itself (or after\n"
      "SIGINT/SIGTERM/SIGHUP); 1 when the term ended under it or the store refuses the configuration;\n"
      "127 when CMD is not found, 126 when it cannot be executed; 2 usage. After `lease resign NAME` the\n"
      "term ends as above but forgemeter stays: it campaigns again one TTL later and runs CMD afresh if elected.");
  add_store_options(*run, a->store);
  run->add_option("NAME,--name", a->name, "the lease's name, e.g. merge-gate-sweeper (named like a lane)")
      ->required()
      ->check(lease_name_rule());
  run->add_option("--ttl", a->ttl, "lease time to live (default 90s)");
  run->add_option("--retry", a->retry, "campaign interval (default TTL/3)");
  run->add_option("--owner", a->owner,
                  "this candidate's name; the store gets it tagged per process, so a second process\n"
                  "with the same --owner is refused (default: host name + random suffix)");
  run->add_option(
      "--grace", a->grace,
      "time between SIGTERM and SIGKILL when the term ends; at most TTL/6 (default: 10s, or TTL/6 when less)");
  run->add_option("--serve-for", a->serve_for,
                  "how long after a renewal was sent CMD may run without a later one proven (default: TTL - TTL/6;\n"
                  "from TTL/3 + 1ms): CMD gets SIGTERM that long after it, less --grace, and SIGKILL by then");
  run->add_option("--metrics-addr", a->metrics_addr,
                  "serve GET /metrics (the lease's figures, Prometheus text), GET /healthz (200 ok, or 503 and\n"
                  "why the campaign is stuck) and GET /readyz on HOST:PORT or unix:PATH, e.g. 127.0.0.1:9464\n"
                  "(docs/metrics.md; the serving options below apply to it)");
  add_serve_options(*run, a->serve);
  run->add_option("CMD", a->cmd, "the command and its arguments, after --")->required();
  run->callback([a, &action] { action = [a] { return with_store_errors([&] { return run_lease(*a); }); }; });

  add_lease_status(*lease, action);
  add_lease_resign(*lease, action);
  add_lease_serve(*lease, action);
}

}  // namespace forgemeter::cli
