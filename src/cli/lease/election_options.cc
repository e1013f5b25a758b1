// add_election_options, plan_election, open_election_store (election_options.h).
#include "cli/lease/election_options.h"

#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/errors.h"
#include "cli/lease/duration_arg.h"
#include "forgemeter/campaign.h"
#include "lease/uri/open_store.h"
#include "lease/uri/store_check.h"

namespace forgemeter::cli {

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

void add_election_options(CLI::App& cmd, ElectionArgs& a, const ElectionWords& w) {
  add_store_options(cmd, a.store);
  cmd.add_option("--owner", a.owner, w.owner_help);
  cmd.add_option("--ttl", a.ttl, "lease time to live (default 90s)");
  cmd.add_option(w.retry_flag, a.retry, "campaign interval (default TTL/3)");
  cmd.add_option("--serve-for", a.serve_for,
                 "how long after a renewal was sent this replica leads without a later one proven\n"
                 "(default: TTL - TTL/6; from TTL/3 + 1ms)");
  cmd.add_flag("--exit-on-loss", a.exit_on_loss, w.exit_on_loss_help);
}

void plan_election(const ElectionArgs& a, const ElectionWords& w, elector::ElectorOptions& o) {
  o.owner = a.owner.empty() ? host_name() : a.owner;
  o.ttl = duration_arg(a.ttl, "--ttl", kMinCampaignTtl, kMaxCampaignTtl);
  if (!a.retry.empty()) o.retry = duration_arg(a.retry, w.retry_flag);
  if (!a.serve_for.empty()) o.serve_for = duration_arg(a.serve_for, "--serve-for");
  o.exit_on_loss = a.exit_on_loss;
  for (std::size_t i = 0; i < o.names.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (o.names[i] == o.names[j]) throw UsageError(fmt::format("lease \"{}\" is named twice", o.names[i]));
  CampaignSpec spec{.name = o.names.at(0), .owner = o.owner, .ttl = o.ttl, .retry = o.retry, .serve_for = o.serve_for};
  if (auto why = check_campaign_spec(spec)) throw UsageError(*why);
}

std::unique_ptr<LeaseStore> open_election_store(const ElectionArgs& a, Duration ttl) {
  const std::string text = store_text(a.store);
  lease_uri::check_store_kind(text);
  const auto check_bound = std::min<Duration>(std::chrono::seconds(10), ttl / 3);
  lease_uri::require_workable_store(text, std::chrono::duration_cast<std::chrono::milliseconds>(check_bound),
                                    /*would_retry=*/true);
  return lease_uri::open_store(text);
}

}  // namespace forgemeter::cli
