#include "transport/cache/cache_front.h"

#include <utility>

#include "core/ascii.h"
#include "forgemeter/url.h"
#include "transport/exchange/body_sink.h"

namespace forgemeter::transport_detail {
namespace {

// The 304's fields replace the kept ones of the same name (RFC 9111 §4.3.4),
// but those that describe the kept body.
bool describes_body(std::string_view name) noexcept {
  for (std::string_view n : {"Content-Length", "Content-Encoding", "Transfer-Encoding", "Content-Range"})
    if (core_detail::iequals(name, n)) return true;
  return false;
}

// A 304's Set-Cookie is that one exchange's: never merged into the kept
// answer every later read of the key is served from.
bool merged(std::string_view name) noexcept {
  return !describes_body(name) && !core_detail::iequals(name, "Set-Cookie");
}

Headers updated(const Headers& kept, const Headers& fresh) {
  Headers out;
  out.reserve(kept.raw().size() + fresh.raw().size(), kept.size() + fresh.size());
  const std::string_view raw = kept.raw();
  out.add_line(raw.substr(0, raw.find('\n') + 1));  // the kept status line
  std::string line;
  auto add = [&](Headers::Field f) { out.add_field(line.assign(f.name).append(": ").append(f.value).append("\r\n")); };
  for (Headers::Field f : kept)
    if (!merged(f.name) || !fresh.find(f.name)) add(f);
  for (Headers::Field f : fresh)
    if (merged(f.name)) add(f);
  out.add_line("\r\n");
  return out;
}

// Whether a 304 with the fields `fresh` selects the kept answer `e` for
// update (RFC 9111 §4.3.4): an ETag it carries must be e's (the weak
// comparison: W/ aside); one without an ETag selects it. Else it names
// another representation than the one kept, which is then no answer to it.
bool selects(const CacheEntry& e, const Headers& fresh) {
  const auto tag = fresh.find("ETag");
  if (!tag) return true;
  auto opaque = [](std::string_view t) {
    t = core_detail::trimmed(t);
    return t.substr(t.starts_with("W/") ? 2 : 0);
  };
  return !e.etag.empty() && opaque(*tag) == opaque(e.etag);
}

// `r` with the entry's validators added.
Request conditional(const Request& r, const CacheEntry& e) {
  Request c = r;
  if (!e.etag.empty()) c.headers.emplace_back("If-None-Match", e.etag);
  if (!e.last_modified.empty()) c.headers.emplace_back("If-Modified-Since", e.last_modified);
  return c;
}

// The kept answer, as the answer to the request the 304 `res` answered.
Response from_entry(const CacheEntry& e, Response&& res) {
  res.headers = updated(e.headers, res.headers);
  res.status = 200;
  res.revalidated = true;
  res.cache = CacheOutcome::revalidated;
  res.body = e.body;
  return std::move(res);
}

// A streamed request's answer body, held back from the caller's sink while
// it fits the per-entry bound, so it can be kept and shared as a buffered
// one; once it passes the bound, what was held and all that follows go to
// the sink as they come (the answer is then neither kept nor shared, and
// the followers of `ticket`, if any, are released at once to send their own).
struct StreamBuffer {
  std::size_t bound;
  Flights::Ticket* ticket = nullptr;
  std::string body{};
  bool over = false;

  // `r` with its sink wrapped to hold into this (which must outlive it).
  Request wrap(const Request& r) {
    Request t = r;
    t.on_body = [this, &sink = r.on_body](const BodyChunk& c) {
      if (!over) {
        if (body.size() + c.bytes.size() <= bound) {
          body.append(c.bytes);  // bad_alloc: the sink's refusal (body_sink.h), the transfer ends
          return true;
        }
        over = true;
        if (ticket) ticket->land(nullptr);  // not after the whole transfer: now
        if (!body.empty() && !sink({c.status, c.headers, body, CacheOutcome::not_stored})) return false;
        std::string().swap(body);
      }
      BodyChunk passed = c;
      passed.cache = CacheOutcome::not_stored;  // past the bound: neither kept nor shared
      return sink(passed);
    };
    return t;
  }
  void clear() {
    body.clear();
    over = false;
  }
};

}  // namespace

CacheFront::CacheFront(const CacheOptions& options, Meter& meter, const Clock& clock)
    : options_(options), meter_(meter), clock_(clock), entries_(options.max_bytes, options.max_entries) {}

void CacheFront::count(const Request& r, void (Meter::*record)(const RequestKey&, UtcMillis) noexcept) {
  const std::string host = host_of(r.url);
  (meter_.*record)(
      {.host = host, .api = api_of_url(r.url), .installation = r.installation, .lane = r.lane.value_or(current_lane())},
      meter_.clock().now());  // stamped as its requests are
}

Response CacheFront::perform(const Request& r, const Send& send) {
  if (!cache_takes(r)) {
    Response res;
    if (r.on_body) {  // its pieces say so too
      Request t = r;
      t.on_body = [&sink = r.on_body](const BodyChunk& c) {
        BodyChunk passed = c;
        passed.cache = CacheOutcome::bypassed;
        return sink(passed);
      };
      res = send(t);
    } else {
      res = send(r);
    }
    res.cache = CacheOutcome::bypassed;
    return res;
  }
  const std::string key = keys_.key(r);
  Flights::Ticket ticket = flights_.join(key);
  if (!ticket.leads()) return follow(r, key, ticket, send);
  Led led = lead(r, key, send, &ticket);
  ticket.land(led.res.ok() && !led.streamed ? &led.res : nullptr);  // a streamed body went to one sink only
  return handed(r, std::move(led.res));
}

// The answer's body to `r`'s sink, when it has one (Response::body then empty).
Response CacheFront::handed(const Request& r, Response res) {
  if (!r.on_body || res.body.empty()) return res;
  if (std::string why; !deliver(r.on_body, {res.status, &res.headers, res.body, res.cache}, why) && !res.error)
    res.error = {TransportErrc::sink_refused, std::move(why)};
  res.body.clear();
  return res;
}

CacheFront::Led CacheFront::lead(const Request& r, const std::string& key, const Send& send, Flights::Ticket* ticket) {
  std::shared_ptr<const CacheEntry> kept = entries_.find(key);
  if (kept && !kept->varies_with(r, keys_)) kept = nullptr;  // another variant: asked for afresh
  StreamBuffer buffer{.bound = options_.max_entry_bytes, .ticket = ticket};
  const Request wrapped = r.on_body ? buffer.wrap(r) : Request();
  const Request& out = r.on_body ? wrapped : r;
  Response res = kept ? send(conditional(out, *kept)) : send(out);
  if (kept && res.ok() && res.status == 304) {
    if (stayed_on_origin(r, res) && selects(*kept, res.headers)) {
      count(r, &Meter::record_revalidated);
      Response served = from_entry(*kept, std::move(res));
      refresh(key, r, *kept, served.headers);
      return {std::move(served), false};
    }
    entries_.erase(key);  // another origin's 304 to this entry's validator, or another representation's
    kept = nullptr;       // asked again without it
    buffer.clear();
    res = send(out);
  }
  if (r.on_body) res.body = std::move(buffer.body);  // held back from the sink: handed() gives it
  res.cache = CacheOutcome::not_stored;
  if (!res.ok()) return {std::move(res), buffer.over};
  if (res.status == 200) {
    auto e = buffer.over ? nullptr : entry_for(r, res, keys_, options_.max_entry_bytes);
    if (!e)
      entries_.erase(key);
    else if (entries_.put(key, std::move(e)))
      res.cache = kept ? CacheOutcome::changed : CacheOutcome::stored;  // the kept one's validator was asked with
  } else if (res.status == 404 || res.status == 410) {
    entries_.erase(key);
  }
  return {std::move(res), buffer.over};
}

// The 304 that revalidated `kept` updates it (RFC 9111 §4.3.4): the entry
// becomes the served answer's header fields on the kept body, or goes when
// they say it is not kept (no-store, Vary: *, no validator left: entry_for).
void CacheFront::refresh(const std::string& key, const Request& r, const CacheEntry& kept, const Headers& served) {
  Response now;
  now.status = 200;
  now.headers = served;
  now.body = kept.body;
  if (auto e = entry_for(r, now, keys_, options_.max_entry_bytes))
    entries_.put(key, std::move(e));
  else
    entries_.erase(key);
}

Response CacheFront::follow(const Request& r, const std::string& key, Flights::Ticket& ticket, const Send& send) {
  const bool timed = r.total_timeout && *r.total_timeout > std::chrono::milliseconds::zero();
  const SteadyTime start = clock_.steady_now();
  const SteadyTime deadline = timed ? start + *r.total_timeout : SteadyTime::max();
  std::shared_ptr<const Response> shared;
  Response res;
  switch (flights_.wait(ticket, r.stop, deadline, clock_, options_.poll, shared)) {
    case Flights::Waited::answered:
      res = *shared;
      res.hops.clear();
      res.revalidated = false;
      res.coalesced = true;
      res.cache = CacheOutcome::coalesced;
      count(r, &Meter::record_coalesced);
      return handed(r, std::move(res));
    case Flights::Waited::stopped:
      res.error = {TransportErrc::cancelled, "cancelled while waiting for an identical request in flight"};
      res.cache = CacheOutcome::not_stored;
      return res;
    case Flights::Waited::timed_out: break;
    case Flights::Waited::released:  // sent as its own, through the cache, not coalesced again
      if (!timed) return handed(r, lead(r, key, send).res);
      const auto left = std::chrono::floor<std::chrono::milliseconds>(deadline - clock_.steady_now());
      if (left <= std::chrono::milliseconds::zero()) break;
      Request own = r;  // with what is left of its total time
      own.total_timeout = left;
      return handed(r, lead(own, key, send).res);
  }
  res.error = {TransportErrc::timeout, "the request's total time (" + std::to_string(r.total_timeout->count()) +
                                           " ms) ran out waiting for an identical request in flight"};
  res.cache = CacheOutcome::not_stored;
  return res;
}

}  // namespace forgemeter::transport_detail
