#include "cli/lease/term.h"

#include <signal.h>
#include <string.h>

#include <algorithm>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "cli/lease/say.h"
#include "core/duration_text.h"
#include "supervise/command_tree.h"

namespace forgemeter::cli {

using core_detail::duration_text;
using supervise::CommandTree;

namespace {

// The store and its credentials are ours, not CMD's: the variables that hold
// a password (libpq's PGPASSWORD, etcdctl's ETCDCTL_PASSWORD and its
// ETCDCTL_USER=user:password) or name the file that does (PGPASSFILE) are
// not passed on. Others (PGHOST, PGUSER, PGSSLKEY, …) name no secret.
const std::vector<std::string> kStoreSecrets{"FORGEMETER_STORE", "PGPASSWORD", "PGPASSFILE", "ETCDCTL_PASSWORD",
                                             "ETCDCTL_USER"};

std::string signame(int sig) {
  return sig == SIGINT    ? "SIGINT"
         : sig == SIGTERM ? "SIGTERM"
         : sig == SIGHUP  ? "SIGHUP"
                          : fmt::format("signal {}", sig);
}

}  // namespace

void serve_term(Term& term, Supervision& s, const TermPlan& p) {
  std::unique_ptr<CommandTree> tree;
  {
    std::lock_guard lock(s.mu);
    if (s.signal != 0) return;
    tree = std::make_unique<CommandTree>(
        p.cmd,
        CommandTree::Env{{"FORGEMETER_LEASE_NAME", p.name},
                         {"FORGEMETER_LEASE_OWNER", p.owner},
                         {"FORGEMETER_LEASE_TERM", std::to_string(term.number())}},
        kStoreSecrets, term.deadline());  // the sentinel SIGKILLs the tree at D unless told a later one
    s.tree = tree.get();
    s.ran = true;
  }
  const std::string lease = fmt::format("lease \"{}\": term {}", p.name, term.number());
  const std::string& what = p.cmd[0];
  say(fmt::format("{}: started {} (pid {})", lease, what, tree->pid()));
  std::stop_callback on_end(term.stop_token(), [&] { tree->wake(); });
  const Clock& clock = system_clock();
  const auto grace = p.grace;

  bool stopping = false;    // the tree was told to stop
  bool term_ended = false;  // ... and the term is ending (SIGKILL by noticed + grace)
  bool by_term = false;     // the term ending was what told it
  bool killed = false;
  SteadyTime kill_at{};
  auto stop_tree = [&](int sig, SteadyTime now, const std::string& why) {
    tree->signal(sig);
    if (!stopping) kill_at = now + grace;
    stopping = true;
    say(fmt::format("{}: {}: {} to {}'s process tree, SIGKILL in {} if any of it still runs", lease, why, signame(sig),
                    what, duration_text(std::max<Duration>(kill_at - now, Duration::zero()))));
  };
  SteadyTime guarded = term.deadline();  // the last D the sentinel was told
  for (;;) {
    const SteadyTime now = clock.steady_now();
    if (!term_ended && term.deadline() > guarded && tree->guard_until(term.deadline())) guarded = term.deadline();
    int forward = 0;
    {
      std::lock_guard lock(s.mu);
      std::swap(forward, s.to_forward);
    }
    if (forward != 0) stop_tree(SIGTERM, now, fmt::format("forgemeter got {}", signame(forward)));
    if (!term_ended && (term.stop_token().stop_requested() || !term.valid() || now >= term.deadline() - grace)) {
      term_ended = true;
      if (!stopping) {
        by_term = true;
        stop_tree(SIGTERM, now, "the term is ending");
      } else {
        kill_at = std::min(kill_at, now + grace);
      }
    }
    if (!stopping && tree->status()) {
      if (tree->empty()) break;
      stop_tree(SIGTERM, now,
                fmt::format("{} exited (status {}) while other processes of its tree run", what, *tree->status()));
    }
    if (stopping) {
      if (now >= kill_at) {
        if (!killed) say(fmt::format("{}: {}'s process tree outlived the grace: SIGKILL", lease, what));
        killed = true;
        tree->signal(SIGKILL);  // again each round: whatever joined or was orphaned meanwhile
      }
      if (tree->empty()) break;
    }
    // Awake at least every `grace` (and 100 ms): a renewal proven before
    // D − grace reaches the sentinel before D.
    const SteadyTime next = stopping ? std::min(kill_at, now + std::chrono::milliseconds(10))
                                     : std::min(term.deadline() - grace, now + grace);
    tree->wait_for(std::clamp(std::chrono::duration_cast<std::chrono::milliseconds>(next - now),
                              std::chrono::milliseconds(1), std::chrono::milliseconds(100)));
  }
  if (!killed && tree->status() == 128 + SIGKILL && clock.steady_now() >= guarded)
    say(fmt::format("{}: {} was SIGKILLed at the term's deadline, by the sentinel if forgemeter was stalled past it",
                    lease, what));
  if (!tree->guarded())
    say(fmt::format("{}: warning: the sentinel was killed; the tree was unguarded against forgemeter's death", lease));
  std::lock_guard lock(s.mu);
  s.tree = nullptr;
  s.status = tree->status().value_or(128 + SIGKILL);
  s.ended_by_term = by_term;
}

}  // namespace forgemeter::cli
