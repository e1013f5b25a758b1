#include "cli/lease/status.h"

#include <cstdio>
#include <optional>

#include <date/date.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/errors.h"
#include "cli/lease/duration_arg.h"
#include "cli/lease/lease_name.h"
#include "cli/lease/say.h"
#include "cli/lease/store_options.h"
#include "core/duration_text.h"
#include "core/output.h"
#include "core/terminal_text.h"
#include "forgemeter/campaign.h"
#include "forgemeter/observe.h"
#include "lease/uri/open_store.h"
#include "lease/uri/secrets.h"
#include "lease/uri/store_check.h"
#include "supervise/signal_watch.h"

namespace forgemeter::cli {

using core_detail::duration_text;
using lease_uri::check_store_kind;
using lease_uri::open_store;
using lease_uri::require_workable_store;
using lease_uri::scrub;

using core_detail::terminal_text;

namespace {

struct StatusArgs {
  StoreOptions store;
  std::string name, timeout = "10s";
  bool json = false, watch = false;
};

std::string iso_ms(UtcMillis t) { return date::format("%FT%TZ", t); }  // 2026-09-30T14:37:12.345Z

// One JSON object; names and holders are anyone's bytes: escaped to ASCII
// (no byte a terminal acts on), invalid UTF-8 replaced, never a broken document.
std::string status_json(const std::string& name, const LeaseState& r, bool held, std::int64_t left_ms) {
  nlohmann::ordered_json j;
  j["name"] = name;
  j["held"] = held;
  j["holder"] = held ? nlohmann::ordered_json(std::string(holder_name(r.holder))) : nullptr;
  j["expiry"] = held ? nlohmann::ordered_json(iso_ms(r.expiry)) : nullptr;
  j["expires_in_ms"] = held ? nlohmann::ordered_json(left_ms) : nullptr;
  j["expired"] = held && left_ms <= 0;
  j["term"] = r.term;
  j["holder_id"] = held ? nlohmann::ordered_json(r.holder) : nullptr;  // as the store has it, a campaign's tag too
  return j.dump(-1, ' ', /*ensure_ascii=*/true, nlohmann::ordered_json::error_handler_t::replace);
}

// One line for an answered state `r` of lease `name`: text, or --json's object.
std::string status_line(const std::string& name, const LeaseState& r, const Clock& clock, bool json) {
  const bool held = r.status == LeaseState::Status::held;
  const std::string_view holder = holder_name(r.holder);  // a campaign's tag is in --json's holder_id
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(r.expiry - clock.now()).count();
  std::string out;
  if (json) {
    out = status_json(name, r, held, left);
  } else if (!held) {
    out = r.term == 0 ? fmt::format("lease \"{}\": free (never taken)", name)
                      : fmt::format("lease \"{}\": free (term {})", name, r.term);
  } else if (left > 0) {
    out = fmt::format("lease \"{}\": held by {} until {} (in {}), term {}", name, holder, iso_ms(r.expiry),
                      duration_text(std::chrono::milliseconds(left)), r.term);
  } else {
    out = fmt::format("lease \"{}\": held by {}, expired at {} ({} ago; anyone may take it), term {}", name, holder,
                      iso_ms(r.expiry), duration_text(std::chrono::milliseconds(-left)), r.term);
  }
  return terminal_text(scrub(out)) + "\n";  // names and holders are anyone's text
}

std::string unreadable(const LeaseState& r, Duration timeout) {
  // Not "did not answer": the store may have answered with a record it cannot read.
  return scrub(
      fmt::format("cannot read the lease from the store: {}; check the store and the server (the bound: "
                  "--timeout {})",
                  r.error, duration_text(timeout)));
}

// --watch: each change on its own line (observe(), forgemeter/observe.h)
// until SIGINT/SIGTERM/SIGHUP (exit 0); an outage is said once on stderr and
// the watch keeps asking.
int watch_status(const StatusArgs& a, LeaseStore& store, Duration timeout, std::stop_source& stop) {
  const Clock& clock = system_clock();
  const ObserveSpec spec{.name = a.name, .poll = std::min<Duration>(timeout, std::chrono::seconds(1)), .clock = &clock};
  observe(store, spec, stop.get_token(), [&](const LeaseState& r) {
    if (r.status == LeaseState::Status::invalid) throw UsageError(r.error);
    if (!r.answered()) {
      say(fmt::format("lease \"{}\": {}; still trying", a.name, unreadable(r, timeout)));
      return;
    }
    core_detail::write_stdout(status_line(a.name, r, clock, a.json));
  });
  return kExitOk;
}

int run_status(const StatusArgs& a) {
  const Duration timeout = duration_arg(a.timeout, "--timeout", std::chrono::milliseconds(1), std::chrono::hours(1));
  std::stop_source stop;
  std::optional<supervise::SignalWatch> signals;  // before any thread (the store's)
  if (a.watch) signals.emplace([&stop](int) { stop.request_stop(); });
  const Clock& clock = system_clock();
  const SteadyTime until = clock.steady_now() + timeout;  // one bound for the check and the question
  const std::string store_text = cli::store_text(a.store);
  check_store_kind(store_text);
  require_workable_store(store_text, std::chrono::ceil<std::chrono::milliseconds>(timeout), /*would_retry=*/false);
  auto store = open_store(store_text);
  if (a.watch) return watch_status(a, *store, timeout, stop);
  LeaseState r = store->inspect(a.name, Deadline{&clock, until});
  if (r.status == LeaseState::Status::invalid) throw UsageError(r.error);
  if (!r.answered()) throw CommandError(unreadable(r, timeout));
  core_detail::write_stdout(status_line(a.name, r, clock, a.json));
  return kExitOk;
}

}  // namespace

void add_lease_status(CLI::App& lease, Action& action) {
  auto a = std::make_shared<StatusArgs>();
  CLI::App* cmd = lease.add_subcommand(
      "status",
      "Print a lease's holder, expiry and term (or that it is free). Exit 1 when the store does not answer\n"
      "within --timeout (or answers what cannot be read). With --watch: that line, then one line per change\n"
      "(another holder or term, a release, an expiry passing; not a renewal), as the store wakes the watch\n"
      "and at least every second, until SIGINT/SIGTERM/SIGHUP (exit 0); while the store does not answer it\n"
      "says so once on stderr and keeps asking.");
  add_store_options(*cmd, a->store);
  cmd->add_option("NAME", a->name, "the lease's name (the lane rule, as for lease run)")
      ->required()
      ->check(lease_name_rule());
  cmd->add_flag("--json", a->json,
                "one JSON object: name, held, holder, expiry, expires_in_ms, expired, term, holder_id");
  cmd->add_flag("--watch", a->watch, "stream each change of the lease until interrupted (with --json: JSON lines)");
  cmd->add_option("--timeout", a->timeout,
                  "how long the store may take, its check and the question together (default 10s, at most 1h)");
  cmd->callback([a, &action] { action = [a] { return with_store_errors([&] { return run_status(*a); }); }; });
}

}  // namespace forgemeter::cli
