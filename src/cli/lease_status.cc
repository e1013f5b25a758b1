#include "cli/lease_status.h"

#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/duration.h"
#include "cli/errors.h"
#include "report/render.h"
#include "cli/secrets.h"
#include "cli/store_arg.h"
#include "cli/store_check.h"
#include "cli/store_uri.h"
#include "report/terminal_text.h"
#include "report/timefmt.h"

namespace forgemeter::cli {

using report::terminal_text;
using report::json_quote;
using report::instant_text;

namespace {

struct StatusArgs {
  StoreOptions store;
  std::string name;
  bool json = false;
};

std::string iso_ms(UtcMillis t) {
  auto ms = t.time_since_epoch().count() % 1000;
  std::string s = instant_text(std::chrono::floor<std::chrono::seconds>(t));
  return fmt::format("{}.{:03}Z", s.substr(0, s.size() - 1), ms);
}

int run_status(const StatusArgs& a) {
  const std::string store_text = resolve_store(a.store);
  check_store_kind(store_text);
  if (std::string why = store_misconfiguration(store_text, std::chrono::seconds(10)); !why.empty())
    throw Failure(fmt::format("the lease store refuses this configuration: {}; fix the store (user, password, database, "
                              "options: --store, --store-file, FORGEMETER_STORE, PGPASSFILE)",
                              why));
  auto store = open_store(store_text);
  const Clock& clock = system_clock();
  LeaseResult r = store->inspect(a.name, Deadline::after(clock, std::chrono::seconds(10)));
  if (r.status == LeaseStatus::invalid) throw UsageError(r.error);
  if (!r.answered()) throw Failure(scrub(fmt::format("the lease store did not answer: {}; check the store and the server", r.error)));
  const bool held = r.status == LeaseStatus::granted;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(r.expiry - clock.now()).count();
  std::string out;
  if (a.json) {
    out = fmt::format(R"({{"name":{},"held":{},"holder":{},"expiry":{},"expires_in_ms":{},"expired":{},"term":{}}})",
                      json_quote(a.name), held, held ? json_quote(r.holder) : "null",
                      held ? json_quote(iso_ms(r.expiry)) : "null", held ? fmt::to_string(left) : "null",
                      held && left <= 0, r.term);
  } else if (!held) {
    out = r.term == 0 ? fmt::format("lease \"{}\": free (never taken)", a.name)
                      : fmt::format("lease \"{}\": free (term {})", a.name, r.term);
  } else if (left > 0) {
    out = fmt::format("lease \"{}\": held by {} until {} (in {}), term {}", a.name, r.holder, iso_ms(r.expiry),
                      format_duration(std::chrono::milliseconds(left)), r.term);
  } else {
    out = fmt::format("lease \"{}\": held by {}, expired at {} ({} ago; anyone may take it), term {}", a.name, r.holder,
                      iso_ms(r.expiry), format_duration(std::chrono::milliseconds(-left)), r.term);
  }
  std::puts(terminal_text(scrub(out)).c_str());  // names and holders are anyone's text
  return kExitOk;
}

}  // namespace

void add_lease_status(CLI::App& lease, Action& action) {
  auto a = std::make_shared<StatusArgs>();
  CLI::App* cmd = lease.add_subcommand("status", "Print a lease's holder, expiry and term (or that it is free). Exit 1 when the store does not answer.");
  add_store_options(*cmd, a->store);
  cmd->add_option("NAME", a->name, "the lease's name")->required();
  cmd->add_flag("--json", a->json, "one JSON object: name, held, holder, expiry, expires_in_ms, expired, term");
  cmd->callback([a, &action] { action = [a] { return run_status(*a); }; });
}

}  // namespace forgemeter::cli
