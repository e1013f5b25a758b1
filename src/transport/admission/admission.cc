#include "transport/admission/admission.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "forgemeter/url.h"
#include "meter/civil.h"
#include "meter/reading.h"
#include "meter/retry_after.h"

namespace forgemeter::transport_detail {

namespace {

// "12.3 s": a wait in seconds, one decimal.
std::string seconds_text(Duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", std::chrono::duration<double>(d).count());
  return buf;
}

std::string budget_text(std::uint64_t installation, std::string_view resource) {
  return "installation " + std::to_string(installation) + "'s " + std::string(resource) + " budget";
}

}  // namespace

void InFlightSlot::release() noexcept {
  if (limits_ != nullptr) limits_->release(installation_, origin_);
  if (mark_ != nullptr) mark_->fetch_sub(1, std::memory_order_relaxed);
  limits_ = nullptr;
  mark_ = nullptr;
}

namespace {

// The pause's settings, checked before anything is built from them.
const AdmissionSettings& checked(const AdmissionSettings& s) {
  if (s.limits.pause.wait.count() < 0) throw std::invalid_argument("Transport: rate_limits.pause.wait must be >= 0");
  if (s.limits.pause.max_wait.count() < 0)
    throw std::invalid_argument("Transport: rate_limits.pause.max_wait must be >= 0");
  return s;
}

}  // namespace

Admission::Admission(const AdmissionSettings& settings, Meter& meter, const Clock& clock)
    : settings_(checked(settings)),
      meter_(meter),
      clock_(clock),
      board_(settings_.max_installations),
      reserves_(settings_.limits.reserves),
      governor_(settings_.limits.pacing.lanes, clock, settings_.limits.pacing.tuning),
      limits_(settings_.limits.secondary_limits, clock),
      limits_on_(settings_.limits.secondary_limits.any()),
      watched_(!reserves_.empty() || !governor_.empty()),
      quiet_(reserves_.empty() && governor_.empty() && !limits_on_) {}

void Admission::record_refused(const HopAsk& hop) {
  const std::string host = host_of(hop.url);
  meter_.record_refused(RequestKey{host, api_of_url(hop.url), hop.installation, hop.lane}, clock_.now());
}

void Admission::record_wait(const HopAsk& hop, WaitCause cause, Duration waited) {
  if (hop.waited != nullptr && waited > Duration::zero()) *hop.waited += waited;
  const auto ms = std::chrono::round<std::chrono::milliseconds>(waited);
  if (ms <= std::chrono::milliseconds::zero()) return;
  const std::string host = host_of(hop.url);
  meter_.record_wait(RequestKey{host, api_of_url(hop.url), hop.installation, hop.lane}, cause, ms, clock_.now());
}

TransportError Admission::admit_slowly(const HopAsk& hop, bool gate_open, InFlightSlot& slot) {
  if (TransportError refused = refusal(hop, gate_open)) return refused;
  if (hop.installation == 0) return {};
  if (TransportError waited = wait_in_turn(hop, slot)) return waited;
  // A term can end while its request waits: the gate is asked again, so
  // nothing goes out under a term that was lost meanwhile.
  if (gates_.allows(hop.lane)) return {};
  slot.release();
  return refusal(hop, false);
}

// The pause, pace and secondary-limit waits, in that order, until all agree.
TransportError Admission::wait_in_turn(const HopAsk& hop, InFlightSlot& slot) {
  const SteadyTime limit = wait_limit(hop);
  for (bool paced = !governor_.paces(hop.lane);;) {
    if (TransportError paused = wait_out_pause(hop)) return paused;
    if (!paced) {
      if (TransportError late = wait_for_pace(hop, limit)) return late;
      paced = true;
    }
    if (!limits_on_) return {};
    if (TransportError late = wait_for_limits(hop, limit, slot)) return late;
    // A pause that began while it waited: the slot goes back, the pause is waited out.
    if (!pauses_.any() || !pauses_.active(hop.installation, origin_id(hop.origin), clock_.steady_now())) return {};
    slot.release();
  }
}

TransportError Admission::refusal(const HopAsk& hop, bool gate_open) {
  const Lane lane = hop.lane;
  TransportError refused;
  if (!gate_open) {
    refused = {TransportErrc::lane_refused, "lane " + std::string(lane.name()) +
                                                " is elected and this process holds no valid term: request not sent"};
  } else if (!reserves_.empty() && hop.installation != 0 && reserves_.reserves(lane)) {
    std::string why = reserves_.refusal(lane, hop.installation, resource_of_path(path_of(hop.url)), clock_.now());
    if (!why.empty()) refused = {TransportErrc::budget_reserved, std::move(why)};
  }
  if (refused) record_refused(hop);
  return refused;
}

namespace {

// The end of a refusal for a wait decided too long.
std::string past_wait(const HopAsk& hop) {
  return hop.req.max_wait ? ", past the request's max_wait: not sent" : ", past the request's timeout: not sent";
}

}  // namespace

// How long a pacing or secondary-limit wait may last: the request's own
// max_wait, else its timeout, from now; and its total_timeout.
SteadyTime Admission::wait_limit(const HopAsk& hop) const {
  Duration most = hop.req.timeout ? Duration(*hop.req.timeout) : settings_.hop_timeout;
  if (hop.req.max_wait) most = Duration(*hop.req.max_wait);
  if (most <= Duration::zero() && !hop.req.max_wait) return hop.deadline;
  return std::min(hop.deadline, clock_.steady_now() + std::max(most, Duration::zero()));
}

// Waits while the installation is paused, unless the pause outlasts what the
// request may wait (pause.max_wait, its own timeout, its total time).
TransportError Admission::wait_out_pause(const HopAsk& hop) {
  if (!pauses_.any()) return {};
  const Duration timeout = hop.req.timeout ? Duration(*hop.req.timeout) : settings_.hop_timeout;
  const Duration max_wait = hop.req.max_wait ? std::min<Duration>(settings_.limits.pause.max_wait, *hop.req.max_wait)
                                             : Duration(settings_.limits.pause.max_wait);
  const Duration most = timeout > Duration::zero() ? std::min(max_wait, timeout) : max_wait;
  const std::string installation = std::to_string(hop.installation);
  const SteadyTime began = clock_.steady_now();
  TransportError end;
  bool held = false;  // only a hop that was held has waited: admitting one takes time too
  WaitingMark waiting(board_, hop.installation, WaitCause::pause);
  const std::uint64_t origin = origin_id(hop.origin);
  while (const auto p = pauses_.active(hop.installation, origin, clock_.steady_now())) {
    held = true;
    if (p->until - clock_.steady_now() > most || p->until > hop.deadline) {
      std::string until = endless(*p) ? "past any wait" : "until ";
      if (!endless(*p)) meter::append_time_of_day(until, meter::time_of_day(p->wall_until));
      end = {TransportErrc::installation_paused, "installation " + installation +
                                                     " is paused by a secondary rate limit " + until +
                                                     ", longer than this request may wait: not sent"};
      break;
    }
    waiting.begin();
    if (!clock_.wait_until(p->until, hop.req.stop)) {
      end = {TransportErrc::cancelled,
             "cancelled while installation " + installation + " was paused by a secondary rate limit"};
      break;
    }
  }
  // However it ended (admitted, refused, stopped), what the wait took is the lane's.
  if (held) record_wait(hop, WaitCause::pause, clock_.steady_now() - began);
  return end;
}

// Waits until the governor lets a paced hop go, or fails at once when its
// next chance is past `limit`.
TransportError Admission::wait_for_pace(const HopAsk& hop, SteadyTime limit) {
  const Lane lane = hop.lane;
  const std::string_view resource = resource_of_path(path_of(hop.url));
  const SteadyTime began = clock_.steady_now();
  WaitingMark waiting(board_, hop.installation, WaitCause::pacing);
  for (bool held = false;; held = true) {  // only a hop that was held has waited
    const PaceVerdict v = governor_.admit(lane, hop.installation, resource);
    const Duration waited = held ? clock_.steady_now() - began : Duration::zero();
    if (v.go) {
      if (waited > Duration::zero()) record_wait(hop, WaitCause::pacing, waited);
      return {};
    }
    if (v.due > limit) {  // decided now, not after waiting to ask again
      record_wait(hop, WaitCause::pacing, waited);
      return {TransportErrc::paced, "lane " + std::string(lane.name()) + " would wait " + seconds_text(v.due - began) +
                                        " for its pace on " + budget_text(hop.installation, resource) + past_wait(hop)};
    }
    waiting.begin();
    if (!clock_.wait_until(v.retry_at, hop.req.stop)) {
      record_wait(hop, WaitCause::pacing, clock_.steady_now() - began);
      return {TransportErrc::cancelled, "cancelled while lane " + std::string(lane.name()) +
                                            " waited for its pace on " + budget_text(hop.installation, resource)};
    }
  }
}

// Waits until every secondary limit lets the hop go (then it holds an
// in-flight slot), or fails at once when that is past `limit`.
TransportError Admission::wait_for_limits(const HopAsk& hop, SteadyTime limit, InFlightSlot& slot) {
  const Api api = api_of_url(hop.url);
  const RequestKind kind = kind_of(hop.method, api, hop.with_body ? std::string_view(hop.req.body) : "");
  // A hop charged to an installation goes to the request's own origin: the counter's.
  const std::uint64_t origin = origin_id(hop.origin);
  const SteadyTime began = clock_.steady_now();
  WaitingMark waiting(board_, hop.installation, WaitCause::secondary);
  for (bool held = false;; held = true) {  // only a hop that was held has waited
    const SecondaryVerdict v = limits_.admit(hop.installation, kind, origin);
    const Duration waited = held ? clock_.steady_now() - began : Duration::zero();
    if (v.go) {
      slot.hold(&limits_, hop.installation, origin);
      if (v.fresh) board_.counts(hop.installation);  // seen: its series from now on (in flight is the limits')
      if (waited > Duration::zero()) record_wait(hop, WaitCause::secondary, waited);
      return {};
    }
    const std::string held_by = "installation " + std::to_string(hop.installation) + "'s " + std::string(v.limit);
    if (v.retry_at > limit) {
      record_wait(hop, WaitCause::secondary, waited);
      return {TransportErrc::paced, "held by " + held_by + " for " + seconds_text(v.retry_at - began) + past_wait(hop)};
    }
    waiting.begin();
    if (!clock_.wait_until(v.retry_at, hop.req.stop)) {
      record_wait(hop, WaitCause::secondary, clock_.steady_now() - began);
      return {TransportErrc::cancelled, "cancelled while held by " + held_by};
    }
  }
}

AnswerNote Admission::note_answer(const AnswerSeen& a) {
  AnswerNote o;
  if (!reads_answer(a.status, a.api)) return o;
  const int status = a.status;
  const std::uint64_t installation = a.installation;
  // GitHub's GraphQL says a spent budget in its body, even with a 200.
  o.graphql_limited =
      a.api == Api::graphql && (status == 200 || status == 403) && meter::says_graphql_rate_limited(a.body);
  // Below 400 an answer neither limits nor is retried: only a reserve or the governor reads it.
  if (status < 400 && !watched_ && !o.graphql_limited) return o;
  const RateLimitHeaders& h = a.headers;
  const UtcMillis wall_now = clock_.now();
  const auto remaining = meter::parse_header_uint(meter::budget_headers(h).remaining);
  o.budget_spent = (remaining && *remaining == 0) || o.graphql_limited;
  if ((status == 403 || status == 429) && meter::classify(status, h, a.body) == AnswerClass::secondary) {
    o.secondary = true;
    const auto asked = meter::retry_after_wait(h.retry_after, wall_now);
    o.retry_after_given = asked.has_value();
    o.secondary_wait = asked.value_or(settings_.limits.pause.wait);
    if (installation != 0) {
      const SteadyTime now = clock_.steady_now();
      pauses_.pause(installation, origin_id(a.origin), pause_after(o.secondary_wait, now, wall_now), now);
    }
  }
  if (!governor_.empty() && installation != 0 && !remaining)  // a forge that says nothing of its budget
    governor_.unreadable(installation, resource_of_path(path_of(a.url)));
  if (watched_ && installation != 0 && remaining) {
    meter::ResourceName resource;
    if (const auto reading = meter::read_budget(h, wall_now); reading && resource.assign(h.resource, a.api)) {
      const std::string_view name = resource.view().empty() ? default_resource(a.api) : resource.view();
      if (!reserves_.empty()) reserves_.offer(installation, name, *reading);
      if (!governor_.empty()) governor_.offer(installation, name, *reading);
    }
  }
  return o;
}

}  // namespace forgemeter::transport_detail
