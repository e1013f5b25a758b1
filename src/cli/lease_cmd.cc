// forgemeter lease run | status: a command that runs only while this process
// holds a lease, and what a lease looks like now. The timing (and why CMD is
// gone before the store could hand the lease on) is in src/cli/README.md.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/child.h"
#include "cli/command.h"
#include "cli/duration.h"
#include "cli/errors.h"
#include "cli/lease_status.h"
#include "cli/store_uri.h"
#include "forgemeter/campaign.h"

namespace forgemeter::cli {

namespace {

struct RunArgs {
  std::string store, name, owner, ttl = "90s", retry, grace;
  std::vector<std::string> cmd;
};

void say(const std::string& line) { std::fputs(("forgemeter: " + line + "\n").c_str(), stderr); }

// What the signal thread and the term's work share.
struct Supervision {
  std::mutex mu;
  Child* child = nullptr;  // while CMD runs
  int signal = 0;          // the first SIGINT/SIGTERM received
  std::stop_source campaign;
  bool ran = false;
  int status = 0;
  bool ended_by_term = false;  // we stopped CMD because the term ended
};

// Blocks SIGINT/SIGTERM in every thread (call before any thread starts) and
// takes them on one thread of its own.
class SignalThread {
 public:
  explicit SignalThread(Supervision& s) : s_(s) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    thread_ = std::thread([this] { loop(); });
  }
  ~SignalThread() {
    done_ = true;
    thread_.join();
  }

 private:
  void loop() {
    timespec tick{0, 100'000'000};
    while (!done_) {
      int sig = sigtimedwait(&set_, nullptr, &tick);
      if (sig <= 0) continue;
      std::lock_guard lock(s_.mu);
      if (s_.signal == 0) s_.signal = sig;
      if (s_.child != nullptr) {
        s_.child->signal(sig);  // forward; CMD decides, and its exit ends the term's work
        s_.child->wake();
      } else {
        s_.campaign.request_stop();
      }
    }
  }
  Supervision& s_;
  sigset_t set_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

void serve_term(Term& term, Supervision& s, const RunArgs& a, const CampaignSpec& spec, Duration grace) {
  std::unique_ptr<Child> child;
  {
    std::lock_guard lock(s.mu);
    if (s.signal != 0) return;
    child = std::make_unique<Child>(a.cmd, std::vector<std::pair<std::string, std::string>>{
                                               {"FORGEMETER_LEASE_NAME", spec.name},
                                               {"FORGEMETER_LEASE_OWNER", spec.owner},
                                               {"FORGEMETER_LEASE_TERM", std::to_string(term.number())}});
    s.child = child.get();
    s.ran = true;
  }
  say(fmt::format("lease \"{}\": term {}: started {} (pid {})", spec.name, term.number(), a.cmd[0], child->pid()));
  std::stop_callback on_end(term.stop_token(), [&] { child->wake(); });
  const Clock& clock = system_clock();
  bool terminating = false, killed = false;
  SteadyTime kill_at{};
  std::optional<int> status;
  while (!status) {
    SteadyTime now = clock.steady_now();
    if (!terminating && (term.stop_token().stop_requested() || !term.valid() || now >= term.deadline() - grace)) {
      terminating = true;
      kill_at = now + grace;
      child->signal(SIGTERM);
      say(fmt::format("lease \"{}\": term {} is ending: SIGTERM to {}, SIGKILL in {} if it is still running",
                      spec.name, term.number(), a.cmd[0], format_duration(grace)));
    } else if (terminating && !killed && now >= kill_at) {
      killed = true;
      child->signal(SIGKILL);
      say(fmt::format("lease \"{}\": term {}: {} outlived the grace: SIGKILL", spec.name, term.number(), a.cmd[0]));
    }
    SteadyTime next = terminating ? (killed ? now + std::chrono::milliseconds(100) : kill_at) : term.deadline() - grace;
    auto wait = std::clamp(std::chrono::duration_cast<std::chrono::milliseconds>(next - now), std::chrono::milliseconds(1),
                           std::chrono::milliseconds(100));
    status = child->wait_for(wait);
  }
  std::lock_guard lock(s.mu);
  s.child = nullptr;
  s.status = *status;
  s.ended_by_term = terminating;
}

int run_lease(const RunArgs& a) {
  CampaignSpec spec;
  spec.name = a.name;
  spec.owner = a.owner.empty() ? make_owner_id() : a.owner;
  spec.ttl = parse_duration(a.ttl, "--ttl");
  spec.retry = a.retry.empty() ? spec.ttl / 3 : parse_duration(a.retry, "--retry");
  Duration grace = a.grace.empty() ? std::min<Duration>(std::chrono::seconds(10), spec.ttl / 6) : parse_duration(a.grace, "--grace");
  if (grace > spec.ttl / 6)
    throw UsageError(fmt::format("--grace {} is more than TTL/6 ({}): CMD could outlive the lease; use a shorter "
                                 "--grace or a longer --ttl",
                                 a.grace, format_duration(spec.ttl / 6)));
  if (std::string why = campaign_spec_error(spec); !why.empty()) throw UsageError(why);
  if (!find_program(a.cmd.at(0)))
    throw Failure(fmt::format("cannot run '{}': not found or not executable; check the command and PATH", a.cmd[0]));
  auto store = open_store(a.store);
  spec.on_loss = OnLoss::stop;
  spec.on_event = [](const LeaseEvent& e) { say(e.text); };

  Supervision s;
  SignalThread signals(s);
  RunEnd end = run(*store, spec, s.campaign.get_token(), [&](Term& term) { serve_term(term, s, a, spec, grace); });
  std::lock_guard lock(s.mu);
  if (!s.ran) {
    if (s.signal != 0) return 128 + s.signal;
    say(fmt::format("lease \"{}\": the term ended before {} started ({})", spec.name, a.cmd[0], to_string(end)));
    return kExitFailure;
  }
  if (s.ended_by_term && s.signal == 0) {
    say(fmt::format("lease \"{}\": the term ended, {} was stopped (status {}); exiting so a supervisor can restart",
                    spec.name, a.cmd[0], s.status));
    return kExitFailure;
  }
  return s.status;
}

}  // namespace

void add_lease(CLI::App& root, Action& action) {
  CLI::App* lease = root.add_subcommand("lease", "Run a command on one replica at a time, under a lease; inspect a lease.");
  lease->require_subcommand(1);

  auto a = std::make_shared<RunArgs>();
  CLI::App* run = lease->add_subcommand(
      "run",
      "Campaign for the lease NAME and run CMD only while this process holds it (fail-closed).\n"
      "CMD gets FORGEMETER_LEASE_NAME, FORGEMETER_LEASE_OWNER and FORGEMETER_LEASE_TERM (the fencing token).\n"
      "When the term ends CMD gets SIGTERM, then SIGKILL after --grace, before the store could hand the lease\n"
      "on. SIGINT/SIGTERM are forwarded to CMD. Exit: CMD's status when it exits by itself (or after a\n"
      "forwarded signal); 1 when the term ended under it or nothing could run; 2 usage.");
  run->add_option("--store", a->store, "memory: (this process only) or a PostgreSQL conninfo / postgresql:// URI")->required();
  run->add_option("--name", a->name, "the lease's name, e.g. merge-gate-sweeper")->required();
  run->add_option("--ttl", a->ttl, "lease time to live (default 90s)");
  run->add_option("--retry", a->retry, "campaign interval (default TTL/3)");
  run->add_option("--owner", a->owner, "this candidate's id (default: host name + random suffix)");
  run->add_option("--grace", a->grace, "time between SIGTERM and SIGKILL when the term ends; at most TTL/6 (default: 10s, or TTL/6 when less)");
  run->add_option("CMD", a->cmd, "the command and its arguments, after --")->required();
  run->callback([a, &action] { action = [a] { return run_lease(*a); }; });

  add_lease_status(*lease, action);
}

}  // namespace forgemeter::cli
