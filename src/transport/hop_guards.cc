#include "transport/hop_guards.h"

#include <algorithm>

#include "meter/civil.h"
#include "meter/reading.h"

namespace forgemeter::transport_detail {

HopGuards::HopGuards(const TransportOptions& options, const Clock& clock)
    : options_(options), clock_(clock), reserves_(options.reserves) {}

TransportError HopGuards::admit_slowly(const Request& req, HopCounter& counter, bool gate_open, const std::string& url,
                                       std::uint64_t installation, SteadyTime deadline) {
  const Lane lane = counter.lane();
  TransportError refused;
  if (!gate_open) {
    refused = {TransportErrc::lane_refused, "lane " + std::string(lane.name()) +
                                                " is elected and this process holds no valid term: request not sent"};
  } else if (!reserves_.empty() && installation != 0 && reserves_.reserves(lane)) {
    refused = {TransportErrc::budget_reserved,
               reserves_.refusal(lane, installation, resource_of_path(path_of(url)), clock_.now())};
  }
  if (!refused.message.empty()) {
    counter.record_refused(url, clock_.now());
    return refused;
  }
  if (installation == 0 || !pauses_.any()) return {};
  return wait_out_pause(req, counter, url, installation, deadline);
}

// Waits while `installation` is paused, unless the pause outlasts what the
// request may wait (max_pause_wait, its own timeout, its total time).
TransportError HopGuards::wait_out_pause(const Request& req, HopCounter& counter, const std::string& url,
                                         std::uint64_t installation, SteadyTime deadline) {
  const Duration timeout = req.timeout.value_or(options_.timeout);
  const Duration most = timeout > Duration::zero() ? std::min<Duration>(options_.max_pause_wait, timeout)
                                                   : Duration(options_.max_pause_wait);
  const SteadyTime began = clock_.steady_now();
  TransportError end;
  while (const auto p = pauses_.active(installation, clock_.steady_now())) {
    if (p->until - clock_.steady_now() > most || p->until > deadline) {
      std::string until;
      meter::append_time_of_day(until, meter::time_of_day(p->wall_until));
      end = {TransportErrc::installation_paused, "installation " + std::to_string(installation) +
                                                     " is paused by a secondary rate limit until " + until +
                                                     ", longer than this request may wait: not sent"};
      break;
    }
    if (!clock_.wait_until(p->until, req.stop)) {
      end = {TransportErrc::cancelled,
             "cancelled while installation " + std::to_string(installation) + " was paused by a secondary rate limit"};
      break;
    }
  }
  // However it ended (admitted, refused, stopped), what the wait took is the lane's.
  counter.record_wait(url, WaitCause::pause, clock_.steady_now() - began, clock_.now());
  return end;
}

HopOutcome HopGuards::note_answer(const HopCounter& counter, const std::string& body, int status,
                                  std::uint64_t installation) {
  HopOutcome o;
  o.status = status;
  // Below 400 an answer neither limits nor is retried: only a reserve reads it.
  if (status == kNoAnswer || (status < 400 && reserves_.empty())) return o;
  const RateLimitHeaders h = counter.rate_headers();
  const UtcMillis wall_now = clock_.now();
  const auto remaining = meter::parse_header_uint(meter::budget_headers(h).remaining);
  o.budget_spent = remaining && *remaining == 0;
  if ((status == 403 || status == 429) && meter::classify(status, h, body) == AnswerClass::secondary) {
    o.secondary = true;
    const auto asked = retry_after_wait(h.retry_after, wall_now);
    o.retry_after_given = asked.has_value();
    o.secondary_wait = asked.value_or(options_.secondary_wait);
    if (installation != 0) {
      const SteadyTime now = clock_.steady_now();
      pauses_.pause(installation, {now + o.secondary_wait, wall_now + o.secondary_wait}, now);
    }
  }
  if (!reserves_.empty() && installation != 0 && remaining) {
    meter::ResourceName resource;
    const Api api = counter.hops().back().api;  // an answer had a hop
    if (const auto reading = meter::read_budget(h, wall_now); reading && resource.assign(h.resource, api))
      reserves_.offer(installation, resource.view().empty() ? default_resource(api) : resource.view(), *reading);
  }
  return o;
}

}  // namespace forgemeter::transport_detail
