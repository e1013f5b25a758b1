// Transport::perform: one request, its redirect hops and retries, each hop a
// curl_easy_perform on a pooled handle with the counting callbacks installed.
#include "forgemeter/transport.h"

#include <strings.h>

#include <array>
#include <stdexcept>

#include "meter/civil.h"
#include "transport/easy_options.h"
#include "transport/errors.h"
#include "transport/handle_pool.h"
#include "transport/hop_counter.h"
#include "transport/installation_pauses.h"
#include "transport/lane_gates.h"
#include "transport/lane_reserves.h"
#include "transport/redirect_policy.h"
#include "transport/retry_policy.h"

namespace forgemeter {

using namespace transport_detail;

namespace {

// RFC 9110 tchar, as a table (checked for every byte of every header name).
constexpr auto kTchar = [] {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = t[c - 'a' + 'A'] = true;
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) t[static_cast<unsigned char>(c)] = true;
  return t;
}();
bool is_tchar(unsigned char c) { return kTchar[c]; }
bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (!is_tchar(c)) return false;
  return true;
}
bool has_control(std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return true;
  return false;
}
bool is_named(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// Why `r` cannot be sent, or "" when it can; then known.checked_origin is its
// origin_key(). `known` remembers the last URL that passed on this handle and
// its origin, so a request to the same URL is not parsed again (the checks
// are the same).
std::string check_request(const Request& r, HandleState& known) {
  if (!is_token(r.method)) return "the method \"" + one_line(r.method) + "\" is not an HTTP token";
  if (known.checked_origin.empty() || r.url != known.checked_url) {
    if (r.url.empty() || has_control(r.url) || r.url.find(' ') != std::string::npos)
      return "the URL is empty or has a space or control byte";
    auto origin = origin_of(r.url);
    if (!origin || origin->host.empty()) return "the URL \"" + one_line(r.url) + "\" cannot be parsed";
    if (!allowed_scheme(origin->scheme))
      return "only http and https URLs are sent, not \"" + one_line(origin->scheme) + "\"";
    known.checked_url = r.url;
    known.checked_origin = origin->key();
  }
  for (const auto& [name, value] : r.headers) {
    if (!is_token(name)) return "the header name \"" + one_line(name) + "\" is not an HTTP token";
    if (has_control(value)) return "the value of header " + name + " has a control byte";
    if (is_named(name, "Host")) return "the Host header comes from the URL; do not set it";
  }
  if (has_control(r.bearer)) return "the bearer credential has a control byte";
  return {};
}

// The header lines of one hop, built straight into libcurl's list (one
// reused line buffer, no vector of strings); throws std::bad_alloc.
Slist hop_headers(const Request& r, bool same_origin, bool with_body, Lane lane, const std::string& lane_header) {
  Slist list;
  std::string line;
  auto add = [&](std::string_view a, std::string_view b, std::string_view c = {}) {
    line.assign(a).append(b).append(c);
    curl_slist* next = curl_slist_append(list.get(), line.c_str());
    if (!next) throw std::bad_alloc();
    (void)list.release();
    list.reset(next);
  };
  for (const auto& [name, value] : r.headers) {
    if (!same_origin && is_credential_header(name)) continue;  // never to another origin
    if (value.empty()) add(name, ";");
    else add(name, ": ", value);
  }
  if (same_origin && !r.bearer.empty()) add("Authorization: Bearer ", r.bearer);
  if (!lane_header.empty()) add(lane_header, ": ", lane.name());
  // No 100-continue round trip (libcurl asks for one only when sending a body).
  if (with_body) add("Expect:", "");
  return list;
}

// hop_headers(), reused from the handle when built from the same inputs.
curl_slist* cached_hop_headers(HandleState& st, const Request& r, bool same_origin, bool with_body, Lane lane,
                               const std::string& lane_header) {
  if (st.headers && st.same_origin_from == same_origin && st.with_body_from == with_body && st.lane_from == lane &&
      st.bearer_from == r.bearer && st.headers_from == r.headers)
    return st.headers.get();
  Slist fresh = hop_headers(r, same_origin, with_body, lane, lane_header);
  st.headers.reset();  // until the inputs below are all recorded (they may throw)
  st.headers_from = r.headers;
  st.bearer_from = r.bearer;
  st.lane_from = lane;
  st.same_origin_from = same_origin;
  st.with_body_from = with_body;
  st.headers = std::move(fresh);
  return st.headers.get();
}

}  // namespace

std::optional<std::string_view> Response::header(std::string_view name) const noexcept {
  return headers.find(name);
}

struct Transport::Impl {
  explicit Impl(TransportOptions o) : options(std::move(o)), reserves(options.reserves) {}
  TransportOptions options;
  const Clock* clock = nullptr;
  Slist resolve;
  HandlePool pool;
  LaneGates gates;
  LaneReserves reserves;
  InstallationPauses pauses;

  // Whether a hop of `req` to `url`, charged to `installation`, may be put on
  // the wire: its lane's gate and reserve allow it, and it waited out any
  // pause of its installation. Refusals are counted; the error says why not.
  TransportError admit(const Request& req, Lane lane, const std::string& url, std::uint64_t installation,
                       Duration timeout) {
    const bool gate_open = gates.allows(lane);  // asked once: a gate is the caller's code
    if (gate_open && reserves.empty() && (installation == 0 || !pauses.any())) return {};  // the usual case
    return admit_slowly(req, lane, gate_open, url, installation, timeout);
  }
  TransportError admit_slowly(const Request& req, Lane lane, bool gate_open, const std::string& url,
                              std::uint64_t installation, Duration timeout);
  // What an answer means for later requests: a secondary limit pauses its
  // installation; a reading feeds the reserves. Returns the hop's outcome.
  HopOutcome note_answer(const HopCounter& counter, const std::string& body, int status, std::uint64_t installation);
};

TransportError Transport::Impl::admit_slowly(const Request& req, Lane lane, bool gate_open, const std::string& url,
                                             std::uint64_t installation, Duration timeout) {
  std::string why;
  TransportErrc code = TransportErrc::lane_refused;
  if (!gate_open) {
    why = "lane " + std::string(lane.name()) + " is elected and this process holds no valid term: request not sent";
  } else if (!reserves.empty() && installation != 0 && reserves.reserves(lane)) {
    why = reserves.refusal(lane, installation, resource_of_path(path_of(url)), clock->now());
    code = TransportErrc::budget_reserved;
  }
  if (!why.empty()) {
    options.meter->record_refused(RequestKey{host_of(url), api_of_url(url), installation, lane}, clock->now());
    return {code, std::move(why)};
  }
  if (installation == 0 || !pauses.any()) return {};
  const Duration most = timeout > Duration::zero() ? std::min<Duration>(options.max_pause_wait, timeout)
                                                   : Duration(options.max_pause_wait);
  while (const auto p = pauses.active(installation, clock->steady_now())) {
    if (p->until - clock->steady_now() > most) {
      std::string until;
      meter::append_time_of_day(until, meter::time_of_day(p->wall_until));
      return {TransportErrc::installation_paused,
              "installation " + std::to_string(installation) +
                  " is paused by a secondary rate limit until " + until +
                  ", longer than this request may wait: not sent"};
    }
    if (!clock->wait_until(p->until, req.stop))
      return {TransportErrc::cancelled, "cancelled while installation " + std::to_string(installation) +
                                            " was paused by a secondary rate limit"};
  }
  return {};
}

HopOutcome Transport::Impl::note_answer(const HopCounter& counter, const std::string& body, int status,
                                        std::uint64_t installation) {
  HopOutcome o;
  o.status = status;
  // Below 400 an answer neither limits nor is retried: only a reserve reads it.
  if (status == kNoAnswer || (status < 400 && reserves.empty())) return o;
  const RateLimitHeaders h = counter.rate_headers();
  const UtcMillis wall_now = clock->now();
  const auto remaining = meter::parse_header_uint(meter::budget_headers(h).remaining);
  o.budget_spent = remaining && *remaining == 0;
  if ((status == 403 || status == 429) && meter::classify(status, h, body) == AnswerClass::secondary) {
    o.secondary = true;
    const auto asked = retry_after_wait(h.retry_after, wall_now);
    o.retry_after_given = asked.has_value();
    o.secondary_wait = asked.value_or(options.secondary_wait);
    if (installation != 0) {
      const SteadyTime now = clock->steady_now();
      pauses.pause(installation, {now + o.secondary_wait, wall_now + o.secondary_wait}, now);
    }
  }
  if (!reserves.empty() && installation != 0 && remaining) {
    meter::ResourceName resource;
    const Api api = counter.hops().back().api;  // an answer had a hop
    if (const auto reading = meter::read_budget(h, wall_now); reading && resource.assign(h.resource, api))
      reserves.offer(installation, resource.view().empty() ? default_resource(api) : resource.view(), *reading);
  }
  return o;
}

Transport::Transport(TransportOptions options) {
  if (!options.meter) throw std::invalid_argument("Transport: TransportOptions::meter is required");
  if (options.secondary_wait.count() < 0 || options.max_pause_wait.count() < 0)
    throw std::invalid_argument("Transport: secondary_wait and max_pause_wait must be >= 0");
  if (options.max_redirects < 0) throw std::invalid_argument("Transport: max_redirects must be >= 0");
  if (options.retry.max_retries < 0) throw std::invalid_argument("Transport: retry.max_retries must be >= 0");
  for (const auto& e : options.resolve)
    if (auto why = check_resolve_entry(e); !why.empty()) throw std::invalid_argument("Transport: " + why);
  if (has_control(options.lane_header) || (!options.lane_header.empty() && !is_token(options.lane_header)))
    throw std::invalid_argument("Transport: lane_header must be an HTTP header name");
  impl_ = std::make_unique<Impl>(std::move(options));
  impl_->clock = impl_->options.clock ? impl_->options.clock : &impl_->options.meter->clock();
  impl_->resolve = make_slist(impl_->options.resolve);
}

Transport::~Transport() = default;

const TransportOptions& Transport::options() const noexcept { return impl_->options; }

void Transport::gate_lane(Lane lane, std::function<bool()> valid) { impl_->gates.gate(lane, std::move(valid)); }
void Transport::ungate_lane(Lane lane) { impl_->gates.ungate(lane); }

Response Transport::perform(const Request& req) {
  Response res;
  HandlePool::Handle handle = impl_->pool.take();
  HandleState& state = handle.state();
  if (auto why = check_request(req, state); !why.empty()) {
    res.error = {TransportErrc::invalid_request, "request not sent: " + why};
    return res;
  }
  const TransportOptions& opt = impl_->options;
  Meter& meter = *opt.meter;
  const Clock& clock = *impl_->clock;
  const Lane lane = req.lane.value_or(current_lane());

  const std::string& origin = state.checked_origin;  // not changed while this handle is ours
  HopCounter counter(meter, lane, req.installation, req.url, origin);
  counter.use_cache(&state.hop);
  counter.use_body(&state.body);
  CURL* h = handle.get();
  char* const error_buffer = state.error;
  ConnectionSettings settings{&opt,
                              impl_->resolve.get(),
                              state.fresh,
                              req.connect_timeout.value_or(opt.connect_timeout),
                              req.timeout.value_or(opt.timeout),
                              &state.body,
                              error_buffer};

  const std::string* url = &req.url;  // this hop's URL: the request's, then a Location
  std::string location_url;
  std::string method = req.method;
  bool with_body = !req.body.empty() || method == "POST" || method == "PUT" || method == "PATCH";
  auto finish = [&](int status) {  // then `return res;` (one object, no move)
    res.status = status;
    res.headers = counter.take_headers();
    res.body = std::move(state.body);
    state.body.clear();  // moved from: empty, made sure
    res.hops = std::move(counter.hops());
  };

  for (int redirects = 0;; ++redirects) {
    const bool same_origin = redirects == 0 || origin_key(*url) == origin;
    const std::uint64_t installation = counter.installation_for(*url);
    curl_slist* headers = cached_hop_headers(state, req, same_origin, with_body, lane, opt.lane_header);
    int status = kNoAnswer;
    for (int retries = 0;; ++retries) {
      if (auto refused = impl_->admit(req, lane, *url, installation, settings.timeout); refused) {
        res.error = std::move(refused);
        finish(counter.hops().empty() ? kNoAnswer : counter.hops().back().status);
        return res;
      }
      error_buffer[0] = '\0';
      state.body.clear();
      // libcurl 7.88 limits dead-connection resends per handle (5 in its
      // lifetime, until a reset): a handle is reset unless its last perform
      // resent nothing, and whenever the hop's shape changes (so no option of
      // another method lingers). On a handle kept without a reset, libcurl
      // still holds every option set since: only what differs is set again.
      const bool kept = state.reusable && state.with_body == with_body && state.method == method;
      if (!kept) {
        impl_->pool.reset(h);
        apply_connection(h, settings);
        settings.load_resolve = false;
        state.fresh = false;
        state.method = method;
        state.with_body = with_body;
        state.callbacks_set = false;
        state.url_set.clear();
        state.headers_set = nullptr;
      } else if (settings.connect_timeout != state.connect_timeout_set || settings.timeout != state.timeout_set) {
        apply_timeouts(h, settings);
      }
      state.connect_timeout_set = settings.connect_timeout;
      state.timeout_set = settings.timeout;
      state.reusable = false;  // until this perform proves clean
      if (!kept || state.url_set != *url) {
        state.url_set.clear();  // until set (the copy may throw)
        apply_url(h, *url);
        state.url_set = *url;
      }
      if (!kept || state.headers_set != headers) {
        apply_header_list(h, headers);
        state.headers_set = headers;
      }
      // The method's options of a kept handle are those of the same method;
      // a body is set again (it is this request's).
      if (!kept || with_body) apply_method(h, method, req.body, with_body);
      counter.attach(h, state.slot, state.callbacks_set);
      const CURLcode rc = curl_easy_perform(h);
      state.slot.counter = nullptr;  // the counter ends with this call
      counter.finish(h, rc);
      state.reusable = rc == CURLE_OK && counter.requests_in_last_perform() == 1;
      status = counter.hops().empty() ? kNoAnswer : counter.hops().back().status;
      HopOutcome outcome = impl_->note_answer(counter, state.body, status, installation);
      outcome.method = method;
      outcome.error = classify(rc);
      outcome.retries_done = retries;
      const TransportErrc errc = outcome.error;
      const RetryDecision d = decide(opt.retry, outcome);
      if (d.retry) {
        if (!clock.wait_until(clock.steady_now() + d.wait, req.stop)) {
          res.error = {TransportErrc::cancelled, "cancelled while waiting to retry " + one_line(*url)};
          finish(status);
          return res;
        }
        continue;
      }
      if (errc != TransportErrc::ok) {
        res.error = {errc, curl_message(rc, error_buffer)};
        finish(status);
        return res;
      }
      res.error = d.error;
      break;
    }
    if (res.error || !is_redirect(status)) {
      finish(status);
      return res;
    }

    char* location = nullptr;
    curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &location);
    if (!location) {  // a 3xx without Location is the answer
      finish(status);
      return res;
    }
    const std::string next = location;
    if (redirects >= opt.max_redirects) {
      res.error = {TransportErrc::redirect_limit,
                   "stopped after " + std::to_string(redirects) + " redirects (the limit is " +
                       std::to_string(opt.max_redirects) + "); the next would have gone to " + one_line(next)};
      finish(status);
      return res;
    }
    const auto to = origin_of(next);
    if (!to || !allowed_scheme(to->scheme)) {
      res.error = {TransportErrc::redirect_refused,
                   "redirect to " + one_line(next) + " refused: only http and https are followed"};
      finish(status);
      return res;
    }
    const std::string m = next_method(status, method);
    if (m != method) with_body = false;
    method = m;
    location_url = next;
    url = &location_url;
  }
}

}  // namespace forgemeter
