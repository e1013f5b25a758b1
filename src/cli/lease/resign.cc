// forgemeter lease resign NAME: asks the holder of one lease to step down
// (LeaseStore::resign). The holder reads the request at its next renewal, or
// at once when the store wakes it; it ends its term as for a stop, releases,
// and stays out one TTL, so a waiting candidate takes over (docs/cli.md).
#include "cli/lease/resign.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/errors.h"
#include "cli/lease/duration_arg.h"
#include "cli/lease/lease_name.h"
#include "cli/lease/store_options.h"
#include "core/duration_text.h"
#include "core/output.h"
#include "core/terminal_text.h"
#include "forgemeter/campaign.h"
#include "lease/uri/open_store.h"
#include "lease/uri/secrets.h"
#include "lease/uri/store_check.h"

namespace forgemeter::cli {
namespace {

struct ResignArgs {
  StoreOptions store;
  std::string name, timeout = "10s";
};

int run_resign(const ResignArgs& a) {
  const Duration timeout = duration_arg(a.timeout, "--timeout", std::chrono::milliseconds(1), std::chrono::hours(1));
  const Clock& clock = system_clock();
  const SteadyTime until = clock.steady_now() + timeout;  // one bound for the check and the request
  const std::string store_text = cli::store_text(a.store);
  lease_uri::check_store_kind(store_text);
  lease_uri::require_workable_store(store_text, std::chrono::ceil<std::chrono::milliseconds>(timeout),
                                    /*would_retry=*/false);
  auto store = lease_uri::open_store(store_text);
  const LeaseResult r = store->resign(a.name, Deadline{&clock, until});
  if (r.status == LeaseStatus::invalid) throw UsageError(r.error);
  if (!r.answered())
    throw CommandError(lease_uri::scrub(fmt::format(
        "the store did not answer: {}; the request may have landed (lease status NAME tells; the bound: --timeout {})",
        r.error, core_detail::duration_text(timeout))));
  const std::string out =
      r.status == LeaseStatus::granted
          ? fmt::format(
                "lease \"{}\": asked {} to step down (term {}); it hands over at its next renewal, at once "
                "when the store wakes it",
                a.name, holder_name(r.holder), r.term)
          : fmt::format("lease \"{}\": free (term {}): nobody to ask", a.name, r.term);
  core_detail::write_stdout(core_detail::terminal_text(lease_uri::scrub(out)) + "\n");  // names are anyone's text
  return kExitOk;
}

}  // namespace

void add_lease_resign(CLI::App& lease, Action& action) {
  auto a = std::make_shared<ResignArgs>();
  CLI::App* cmd = lease.add_subcommand(
      "resign",
      "Ask the holder of the lease NAME to step down: it reads the request at its next renewal (at once when\n"
      "the store wakes it: PostgreSQL NOTIFY, an etcd watch), ends its term as for a stop (CMD gets SIGTERM),\n"
      "releases the lease and campaigns again only one TTL later, so a waiting candidate takes over. Only\n"
      "NAME is touched; the request holds for the current term only. Exit 0 when asked (or the lease is\n"
      "free: nothing to ask); 1 when the store does not answer within --timeout; 2 usage.");
  add_store_options(*cmd, a->store);
  cmd->add_option("NAME", a->name, "the lease's name (the lane rule, as for lease run)")
      ->required()
      ->check(lease_name_rule());
  cmd->add_option("--timeout", a->timeout,
                  "how long the store may take, its check and the request together (default 10s, at most 1h)");
  cmd->callback([a, &action] { action = [a] { return with_store_errors([&] { return run_resign(*a); }); }; });
}

}  // namespace forgemeter::cli
