// election_options.h — the options of a command that campaigns through the
// elector (`lease serve`, `proxy --elect`): the store (store_options.h),
// --owner (default: the host name), --ttl, the campaign interval,
// --serve-for and --exit-on-loss; what they add up to in
// elector::ElectorOptions, and the store they name, opened and checked.
// One declaration for both commands, so the two never drift apart.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "cli/lease/store_options.h"
#include "elector/elector.h"
#include "forgemeter/lease.h"

namespace CLI {
class App;
}

namespace forgemeter::cli {

struct ElectionArgs {
  StoreOptions store;
  std::string owner, ttl = "90s", retry, serve_for;
  bool exit_on_loss = false;
};

// How a command names and explains them: the campaign interval's flag
// (`--retry`, unless the command has a --retry of its own), what --owner is
// shown as, what --exit-on-loss ends.
struct ElectionWords {
  std::string retry_flag = "--retry";
  std::string owner_help;
  std::string exit_on_loss_help;
};

void add_election_options(CLI::App& cmd, ElectionArgs& args, const ElectionWords& words);

// The owner, TTL, campaign interval, serving window and exit-on-loss of `o`
// from `args`, checked as campaign() would check them for `o.names` (which
// must be set and distinct); UsageError naming the option otherwise.
void plan_election(const ElectionArgs& args, const ElectionWords& words, elector::ElectorOptions& o);

// The store `args` names, its kind known to this build and found workable
// within min(10 s, TTL/3) (lease_uri::StoreError otherwise: with_store_errors).
std::unique_ptr<LeaseStore> open_election_store(const ElectionArgs& args, Duration ttl);

// This machine's host name ("localhost" when it has none).
std::string host_name();

}  // namespace forgemeter::cli
