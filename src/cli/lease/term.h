// term.h — `lease run` during one term: CMD's tree from its start to
// its last process. The arithmetic is in docs/cli.md (lease run).
//
// The term's work thread runs serve_term(); a signal thread and the campaign
// share a Supervision with it. serve_term() returns — and so the campaign
// releases the lease — only once no process of the tree is left, whatever
// ended it:
//   * the term ending (refused, or D − grace reached): SIGTERM to the tree,
//     SIGKILL `grace` later (by D when on time);
//   * SIGINT/SIGTERM/SIGHUP to forgemeter: SIGTERM to the tree, SIGKILL
//     `grace` later (sooner if the term ends meanwhile, as above);
//   * CMD exiting while other processes of its tree run: SIGTERM to them,
//     SIGKILL `grace` later (sooner if the term ends meanwhile).
// Meanwhile each proven deadline D goes to the tree's sentinel, which
// SIGKILLs the tree at D on its own if this process stalls (SIGSTOP).
#pragma once

#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

#include "forgemeter/campaign.h"

namespace forgemeter::supervise {
class CommandTree;
}

namespace forgemeter::cli {

struct Supervision {
  std::mutex mu;
  supervise::CommandTree* tree = nullptr;  // while the tree runs
  int signal = 0;                          // the first SIGINT/SIGTERM/SIGHUP received
  int to_forward = 0;                      // the latest one, not yet sent to the tree
  std::stop_source campaign;
  bool ran = false;
  int status = 0;              // CMD's exit code
  bool ended_by_term = false;  // we stopped the tree because the term ended
};

struct TermPlan {
  std::vector<std::string> cmd;
  std::string name, owner;
  Duration grace{};
};

void serve_term(Term& term, Supervision& s, const TermPlan& plan);

}  // namespace forgemeter::cli
