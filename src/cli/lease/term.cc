#include "cli/lease/term.h"

#include <signal.h>
#include <string.h>

#include <algorithm>
#include <memory>
#include <utility>
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

// CMD's tree, started unless a signal came first (then null).
std::unique_ptr<CommandTree> start_tree(Term& term, Supervision& s, const TermPlan& p) {
  std::lock_guard lock(s.mu);
  if (s.signal != 0) return nullptr;
  auto tree = std::make_unique<CommandTree>(
      p.cmd,
      CommandTree::Env{{"FORGEMETER_LEASE_NAME", p.name},
                       {"FORGEMETER_LEASE_OWNER", p.owner},
                       {"FORGEMETER_LEASE_TERM", std::to_string(term.number())}},
      kStoreSecrets, term.deadline());  // the sentinel SIGKILLs the tree at D unless told a later one
  s.tree = tree.get();
  s.ran = true;
  return tree;
}

// One term's tree from its start to its last process, a round at a time.
// The tree's phases:
//   running   nothing has told it to stop;
//   stopping  SIGTERM sent (`cause_` says what sent it first), SIGKILL due at kill_at_;
//   killing   kill_at_ passed: SIGKILL each round (whatever joined or was
//             orphaned meanwhile) until no process of it is left.
// Beside them, whether the term is over: from then on the sentinel is told
// no later deadline, and SIGKILL comes `grace` after it at the latest.
class TermTree {
 public:
  enum class Phase { running, stopping, killing };
  enum class Cause { none, signal, term_over, cmd_exited };

  TermTree(Term& term, Supervision& s, const TermPlan& p, CommandTree& tree)
      : term_(term),
        s_(s),
        tree_(tree),
        grace_(p.grace),
        what_(p.cmd[0]),
        lease_(fmt::format("lease \"{}\": term {}", p.name, term.number())),
        guarded_(term.deadline()) {}

  const std::string& lease() const { return lease_; }

  // One round at `now`; true once no process of the tree is left.
  bool round(SteadyTime now) {
    if (!term_over_ && term_.deadline() > guarded_ && tree_.guard_until(term_.deadline())) guarded_ = term_.deadline();
    if (const int forward = take_forwarded(); forward != 0)
      stop(SIGTERM, now, Cause::signal, fmt::format("forgemeter got {}", signame(forward)));
    if (!term_over_ && term_ending(now)) {
      term_over_ = true;
      if (phase_ == Phase::running)
        stop(SIGTERM, now, Cause::term_over, "the term is ending");
      else
        kill_at_ = std::min(kill_at_, now + grace_);
    }
    if (phase_ == Phase::running && tree_.status()) {
      if (tree_.empty()) return true;
      stop(SIGTERM, now, Cause::cmd_exited,
           fmt::format("{} exited (status {}) while other processes of its tree run", what_, *tree_.status()));
    }
    if (phase_ == Phase::running) return false;
    if (now >= kill_at_) kill();
    return tree_.empty();
  }

  // How long to wait for the tree before the next round. Awake at least
  // every `grace` (and 100 ms): a renewal proven before D − grace reaches
  // the sentinel before D.
  std::chrono::milliseconds wait(SteadyTime now) const {
    const SteadyTime next = phase_ != Phase::running ? std::min(kill_at_, now + std::chrono::milliseconds(10))
                                                     : std::min(term_.deadline() - grace_, now + grace_);
    return std::clamp(std::chrono::duration_cast<std::chrono::milliseconds>(next - now), std::chrono::milliseconds(1),
                      std::chrono::milliseconds(100));
  }

  // Says what the sentinel did, and records CMD's end in the Supervision.
  void finish(SteadyTime now) {
    if (phase_ != Phase::killing && tree_.status() == 128 + SIGKILL && now >= guarded_)
      say(fmt::format("{}: {} was SIGKILLed at the term's deadline, by the sentinel if forgemeter was stalled past it",
                      lease_, what_));
    if (!tree_.guarded())
      say(fmt::format("{}: warning: the sentinel was killed; the tree was unguarded against forgemeter's death",
                      lease_));
    std::lock_guard lock(s_.mu);
    s_.tree = nullptr;
    s_.status = tree_.status().value_or(128 + SIGKILL);
    s_.ended_by_term = cause_ == Cause::term_over;
  }

 private:
  int take_forwarded() {
    std::lock_guard lock(s_.mu);
    return std::exchange(s_.to_forward, 0);
  }

  bool term_ending(SteadyTime now) const {
    return term_.stop_token().stop_requested() || !term_.valid() || now >= term_.deadline() - grace_;
  }

  // `sig` to the tree; the first time, SIGKILL is due `grace` later.
  void stop(int sig, SteadyTime now, Cause cause, const std::string& why) {
    tree_.signal(sig);
    if (phase_ == Phase::running) {
      phase_ = Phase::stopping;
      cause_ = cause;
      kill_at_ = now + grace_;
    }
    say(fmt::format("{}: {}: {} to {}'s process tree, SIGKILL in {} if any of it still runs", lease_, why, signame(sig),
                    what_, duration_text(std::max<Duration>(kill_at_ - now, Duration::zero()))));
  }

  void kill() {
    if (phase_ != Phase::killing) say(fmt::format("{}: {}'s process tree outlived the grace: SIGKILL", lease_, what_));
    phase_ = Phase::killing;
    tree_.signal(SIGKILL);
  }

  Term& term_;
  Supervision& s_;
  CommandTree& tree_;
  const Duration grace_;
  const std::string& what_;
  const std::string lease_;
  Phase phase_ = Phase::running;
  Cause cause_ = Cause::none;
  SteadyTime kill_at_{};
  bool term_over_ = false;
  SteadyTime guarded_;  // the last D the sentinel was told
};

}  // namespace

void serve_term(Term& term, Supervision& s, const TermPlan& p) {
  const std::unique_ptr<CommandTree> tree = start_tree(term, s, p);
  if (!tree) return;
  TermTree t(term, s, p, *tree);
  say(fmt::format("{}: started {} (pid {})", t.lease(), p.cmd[0], tree->pid()));
  std::stop_callback on_end(term.stop_token(), [&] { tree->wake(); });
  const Clock& clock = system_clock();
  for (;;) {
    const SteadyTime now = clock.steady_now();
    if (t.round(now)) break;
    tree->wait_for(t.wait(now));
  }
  t.finish(clock.steady_now());
}

}  // namespace forgemeter::cli
