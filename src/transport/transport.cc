// Transport::perform: one request, its redirect hops and retries, each hop a
// curl_easy_perform on a pooled handle with the counting callbacks installed.
#include "forgemeter/transport.h"

#include <stdexcept>

#include "transport/admission/admission.h"
#include "transport/cache/cache_front.h"
#include "transport/easy_options.h"
#include "transport/errors.h"
#include "transport/handle_pool.h"
#include "transport/hop.h"
#include "transport/hop_counter.h"
#include "transport/hop_headers.h"
#include "transport/redirect_policy.h"
#include "transport/request_checks.h"
#include "transport/retry_policy.h"

namespace forgemeter {

using namespace transport_detail;

namespace {

// One request on its way: the pooled handle it holds, the counter that
// charges its hops, and the hop at hand.
struct Exchange {
  Exchange(const TransportOptions& opt, curl_slist* resolve, const Request& r, HandlePool::Handle& h)
      : req(r),
        handle(h),
        lane(r.lane.value_or(current_lane())),
        counter(*opt.meter, lane, r.installation, r.url, h.state().checked_origin),
        hop_timeout(r.timeout.value_or(opt.timeout)),
        settings{.options = &opt,
                 .resolve = resolve,
                 .connect_timeout = r.connect_timeout.value_or(opt.connect_timeout),
                 .timeout = hop_timeout,
                 .body_tap = &h.state().tap,
                 .error_buffer = h.state().error,
                 .body_feed = &h.state().feed},
        hop(first_hop(r)),
        follows(r.follow_redirects && !r.body_source) {  // a source's bytes cannot be sent again
    counter.use_parsed(&h.state().hop);
    counter.use_body(&h.state().tap.body);
    tap().begin(h.get(), sink(), &counter.headers(), {});  // no earlier request's sink
  }

  BodyTap& tap() { return handle.state().tap; }
  const BodySink* sink() const { return req.on_body ? &req.on_body : nullptr; }

  // The request's Response: the last answer, if any, and every hop.
  Response respond(TransportError error) {
    Response res;
    res.status = counter.last_status();
    // A held answer is the final one now: to the sink (with its head, still the counter's).
    if (tap().streaming() && !tap().flush() && !error) error = {TransportErrc::sink_refused, tap().refusal()};
    res.headers = counter.take_headers();
    if (!tap().streaming()) res.body = std::move(tap().body);
    tap().body.clear();  // moved from (or a streamed body's prefix): empty, made sure
    res.hops = std::move(counter.hops());
    res.error = std::move(error);
    res.waited = std::chrono::round<std::chrono::milliseconds>(waited);
    return res;
  }

  const Request& req;
  HandlePool::Handle& handle;
  const Lane lane;
  HopCounter counter;  // views req.url and the checked origin: neither changes while the handle is ours
  const std::chrono::milliseconds hop_timeout;  // 0: none
  ConnectionSettings settings;                  // its timeout shrinks to what is left of a total_timeout
  SteadyTime deadline = SteadyTime::max();      // the total_timeout's end
  HopLine hop;
  std::string location;  // a redirect hop's URL (hop.url then points here)
  int redirects = 0;     // followed so far
  const bool follows;    // redirects are followed (else a 3xx is the answer)
  Duration waited{};     // held before its hops were sent (Response::waited)
};

// What one performed hop came to.
struct HopResult {
  HopOutcome outcome;      // what the retry policy reads
  TransportError failure;  // the exchange failed (libcurl's error), or ok
};

// Where the answer at hand redirects to, or nullptr when it is the response
// (not a redirect, a 3xx without Location, or one the request does not
// follow). Valid until the next perform.
const char* redirect_location(Exchange& x) {
  if (!x.follows || !is_redirect(x.counter.last_status())) return nullptr;
  char* location = nullptr;
  curl_easy_getinfo(x.handle.get(), CURLINFO_REDIRECT_URL, &location);
  return location;
}

// Makes the redirect to `location` the hop at hand, or says why it is not followed.
TransportError follow_redirect(Exchange& x, const char* location, int max_redirects) {
  std::string next = without_userinfo(location);  // never a credential the forge chose
  if (x.redirects >= max_redirects)
    return {TransportErrc::redirect_limit, "stopped after " + std::to_string(x.redirects) +
                                               " redirects (the limit is " + std::to_string(max_redirects) +
                                               "); the next would have gone to " + terminal_text(next)};
  const auto to = origin_of(next);
  if (!to || !allowed_scheme(to->scheme))
    return {TransportErrc::redirect_refused,
            "redirect to " + terminal_text(next) + " refused: only http and https are followed"};
  std::string method = next_method(x.counter.last_status(), x.hop.method);
  if (method != x.hop.method) x.hop.with_body = false;
  x.hop.method = std::move(method);
  x.location = std::move(next);
  x.hop.url = &x.location;
  ++x.redirects;
  return {};
}

// With a total_timeout: the hop's own timeout cut to what is left of it, or
// the error when nothing is left.
TransportError fit_to_deadline(Exchange& x, SteadyTime now) {
  if (x.deadline == SteadyTime::max()) return {};
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(x.deadline - now);
  if (left <= std::chrono::milliseconds::zero())
    return {TransportErrc::timeout, "the request's total time (" + std::to_string(x.req.total_timeout->count()) +
                                        " ms) ran out before " + terminal_text(*x.hop.url) + " was sent"};
  x.settings.timeout = x.hop_timeout > std::chrono::milliseconds::zero() ? std::min(x.hop_timeout, left) : left;
  return {};
}

}  // namespace

struct Transport::Impl {
  explicit Impl(TransportOptions o)
      : options(std::move(o)),
        clock(options.clock ? *options.clock : options.meter->clock()),
        resolve(make_slist(options.resolve)),
        admission({.limits = options.rate_limits,
                   .hop_timeout = options.timeout,
                   .max_installations = options.max_installations},
                  *options.meter, clock) {
    if (CacheFront::wanted(options.cache)) cache = std::make_unique<CacheFront>(options.cache, *options.meter, clock);
  }

  // The request on the wire: its own hop, then each redirect's.
  Response send(const Request& req);

  // Sends the hop at hand until an answer stands: admitted, sent on the
  // prepared handle, and sent again while the retry policy says so. Returns
  // the error that ends the request, or ok.
  TransportError send_hop(Exchange& x);
  // Performs the prepared hop, charged to `installation`, after `retries`
  // earlier tries; the admission learns from its answer.
  HopResult perform_hop(Exchange& x, std::uint64_t installation, int retries);

  TransportOptions options;
  const Clock& clock;
  Slist resolve;
  HandlePool pool;
  Admission admission;                // whether each hop goes now: the one place
  std::unique_ptr<CacheFront> cache;  // nullptr: no cache (TransportOptions::cache)
};

TransportError Transport::Impl::send_hop(Exchange& x) {
  const std::string& url = *x.hop.url;
  const std::uint64_t installation = x.counter.installation_for(url);
  curl_slist* headers =
      hop_headers(x.handle.state(), x.req, x.counter.on_own_origin(url), x.hop.with_body, x.lane, options.lane_header);
  for (int retries = 0;; ++retries) {
    InFlightSlot slot;  // given back once the hop's exchange is over
    const HopAsk ask{x.req,           x.lane,       x.counter.origin(), url,      x.hop.method,
                     x.hop.with_body, installation, x.deadline,         &x.waited};
    if (TransportError refused = admission.admit(ask, slot)) return refused;
    if (TransportError late = fit_to_deadline(x, clock.steady_now())) return late;
    prepare_handle(x.handle, x.settings, x.hop, headers, x.req);
    HopResult r = perform_hop(x, installation, retries);
    slot.release();
    if (x.deadline != SteadyTime::max()) r.outcome.time_left = x.deadline - clock.steady_now();
    RetryDecision d = decide_retry(options.rate_limits.retry, r.outcome);
    if (!d.retry) return r.failure ? std::move(r.failure) : std::move(d.error);
    x.tap().drop();  // a retried attempt's held body never reaches the sink
    const SteadyTime began = clock.steady_now();
    WaitingMark paused = admission.waiting(installation, WaitCause::pause);
    if (r.outcome.secondary) paused.begin();
    const bool waited = clock.wait_until(began + d.wait, x.req.stop);
    // The forge said to wait (a secondary limit): a pause, recorded as one.
    if (r.outcome.secondary)
      admission.record_wait(ask, WaitCause::pause, clock.steady_now() - began);
    else
      x.waited += clock.steady_now() - began;
    if (!waited) return {TransportErrc::cancelled, "cancelled while waiting to retry " + terminal_text(url)};
  }
}

HopResult Transport::Impl::perform_hop(Exchange& x, std::uint64_t installation, int retries) {
  const RetryOptions& retry = options.rate_limits.retry;
  const bool may_retry = retry.enabled && retries < retry.max_retries && !x.hop.fed;
  x.handle.state().feed.begin(x.hop.fed ? &x.req.body_source : nullptr, x.req.body_length);
  x.tap().begin(x.handle.get(), x.sink(), &x.counter.headers(),
                {.retries = may_retry, .idempotent = is_idempotent(x.hop.method), .follows = x.follows});
  const CURLcode rc = perform_prepared(x.handle, x.counter, x.req.stop);
  HopResult r;
  r.outcome.status = x.counter.last_status();
  if (!x.counter.hops().empty() && admission.reads_answer(r.outcome.status, x.counter.hops().back().api)) {
    const Hop& hop = x.counter.hops().back();
    const RateLimitHeaders h = x.counter.rate_headers();
    const AnswerNote note = admission.note_answer({.status = r.outcome.status,
                                                   .headers = h,
                                                   .body = x.tap().body,
                                                   .api = hop.api,
                                                   .url = hop.url,
                                                   .origin = x.counter.origin(),
                                                   .installation = installation});
    r.outcome.budget_spent = note.budget_spent;
    r.outcome.graphql_limited = note.graphql_limited;
    r.outcome.secondary = note.secondary;
    r.outcome.secondary_wait = note.secondary_wait;
    r.outcome.retry_after_given = note.retry_after_given;
  }
  r.outcome.method = x.hop.method;
  const BodyFeed& feed = x.handle.state().feed;
  r.outcome.error = x.tap().refused() ? TransportErrc::sink_refused
                    : feed.failed()   ? TransportErrc::source_failed
                                      : classify(rc);
  r.outcome.retries_done = retries;
  r.outcome.body_delivered = x.tap().delivered();
  r.outcome.fed = x.hop.fed;
  if (x.tap().refused())
    r.failure = {TransportErrc::sink_refused, x.tap().refusal()};
  else if (feed.failed())
    r.failure = {TransportErrc::source_failed, feed.failure()};
  else if (rc != CURLE_OK)
    r.failure = {r.outcome.error, curl_message(rc, x.handle.state().error)};
  return r;
}

Transport::Transport(TransportOptions options) {
  if (!options.meter) throw std::invalid_argument("Transport: meter is required");
  if (options.max_redirects < 0) throw std::invalid_argument("Transport: max_redirects must be >= 0");
  if (!timeout_in_range(options.timeout)) throw std::invalid_argument("Transport: timeout must be 0 (none) to 100000h");
  if (!timeout_in_range(options.connect_timeout))
    throw std::invalid_argument("Transport: connect_timeout must be 0 (none) to 100000h");
  if (CacheFront::wanted(options.cache) && options.cache.poll <= std::chrono::milliseconds::zero())
    throw std::invalid_argument("Transport: cache.poll must be > 0");
  if (options.max_installations == 0) throw std::invalid_argument("Transport: max_installations must be at least 1");
  if (options.rate_limits.retry.max_retries < 0)
    throw std::invalid_argument("Transport: rate_limits.retry.max_retries must be >= 0");
  for (std::size_t i = 0; i < options.resolve.size(); ++i)
    if (auto why = check_resolve_entry(options.resolve[i]))
      throw std::invalid_argument("Transport: resolve[" + std::to_string(i) + "]: " + *why);
  if (!is_field_value(options.user_agent))
    throw std::invalid_argument("Transport: user_agent has a control byte (a CR or LF would start another header)");
  if (has_control(options.lane_header) || (!options.lane_header.empty() && !is_token(options.lane_header)))
    throw std::invalid_argument("Transport: lane_header must be an HTTP header name");
  impl_ = std::make_unique<Impl>(std::move(options));
}

Transport::~Transport() = default;

const TransportOptions& Transport::options() const noexcept { return impl_->options; }

void Transport::gate_lane(Lane lane, std::function<bool()> valid) { impl_->admission.gate(lane, std::move(valid)); }
void Transport::ungate_lane(Lane lane) { impl_->admission.ungate(lane); }

TransportFigures Transport::figures() const { return impl_->admission.figures(); }

CacheFigures Transport::cache_figures() const { return impl_->cache ? impl_->cache->figures() : CacheFigures{}; }

Response Transport::perform(const Request& req) {
  if (impl_->cache) [[unlikely]]  // the one point the cache is asked
    return impl_->cache->perform(req, [this](const Request& r) { return impl_->send(r); });
  return impl_->send(req);
}

Response Transport::Impl::send(const Request& req) {
  HandlePool::Handle handle = pool.take();
  if (auto why = check_request(req, handle.state())) {
    Response res;
    res.error = {TransportErrc::invalid_request, "request not sent: " + *why};
    return res;
  }
  Exchange x(options, resolve.get(), req, handle);
  if (req.total_timeout && *req.total_timeout > std::chrono::milliseconds::zero())
    x.deadline = clock.steady_now() + *req.total_timeout;
  for (;;) {  // the request's own hop, then each redirect's
    if (TransportError end = send_hop(x)) return x.respond(std::move(end));
    const char* location = redirect_location(x);
    if (!location) return x.respond({});  // the answer is the response
    if (TransportError refused = follow_redirect(x, location, options.max_redirects))
      return x.respond(std::move(refused));
  }
}

}  // namespace forgemeter
