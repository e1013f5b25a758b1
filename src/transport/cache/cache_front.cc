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

// The kept answer, as the answer to the request `r` the 304 `res` answered:
// its body to r's sink when it streams.
Response from_entry(const Request& r, const CacheEntry& e, Response&& res) {
  res.headers = updated(e.headers, res.headers);
  res.status = 200;
  res.revalidated = true;
  if (!r.on_body) {
    res.body = e.body;
  } else if (std::string why; !e.body.empty() && !deliver(r.on_body, {200, &res.headers, e.body}, why)) {
    res.error = {TransportErrc::sink_refused, std::move(why)};
  }
  return std::move(res);
}

// A streamed answer's body, copied beside the caller's sink while it fits
// the per-entry bound (dropped once it passes it).
struct StreamCopy {
  std::size_t bound;
  std::string body;
  bool over = false;

  // `r` with its sink wrapped to copy into this (which must outlive it).
  Request tee(const Request& r) {
    Request t = r;
    t.on_body = [this, &sink = r.on_body](const BodyChunk& c) {
      if (!over && body.size() + c.bytes.size() <= bound) {
        try {
          body.append(c.bytes);
        } catch (const std::bad_alloc&) {
          over = true;  // not kept
        }
      } else if (!over) {
        over = true;
        std::string().swap(body);
      }
      return sink(c);
    };
    return t;
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
  if (!cache_takes(r)) return send(r);
  const std::string key = keys_.key(r);
  if (r.on_body) return lead(r, key, send);  // a streamed answer cannot be shared: not coalesced
  Flights::Ticket ticket = flights_.join(key);
  if (!ticket.leads()) return follow(r, key, ticket, send);
  Response res = lead(r, key, send);
  ticket.land(res.ok() ? &res : nullptr);
  return res;
}

Response CacheFront::lead(const Request& r, const std::string& key, const Send& send) {
  std::shared_ptr<const CacheEntry> kept = entries_.find(key);
  if (kept && !kept->varies_with(r, keys_)) kept = nullptr;  // another variant: asked for afresh
  StreamCopy copy{.bound = options_.max_entry_bytes, .body = {}};
  const Request teed = r.on_body ? copy.tee(r) : Request();
  const Request& out = r.on_body ? teed : r;
  Response res = kept ? send(conditional(out, *kept)) : send(out);
  if (kept && res.ok() && res.status == 304) {
    if (stayed_on_origin(r, res) && selects(*kept, res.headers)) {
      count(r, &Meter::record_revalidated);
      Response served = from_entry(r, *kept, std::move(res));
      refresh(key, r, *kept, served.headers);
      return served;
    }
    entries_.erase(key);  // another origin's 304 to this entry's validator, or another representation's
    res = send(out);
  }
  if (!res.ok()) return res;
  if (res.status == 200) {
    if (r.on_body) res.body = copy.over ? std::string() : std::move(copy.body);  // what entry_for reads
    auto e = copy.over ? nullptr : entry_for(r, res, keys_, options_.max_entry_bytes);
    if (r.on_body) res.body.clear();  // streamed: the caller had it
    if (e)
      entries_.put(key, std::move(e));
    else
      entries_.erase(key);
  } else if (res.status == 404 || res.status == 410) {
    entries_.erase(key);
  }
  return res;
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
      count(r, &Meter::record_coalesced);
      return res;
    case Flights::Waited::stopped:
      res.error = {TransportErrc::cancelled, "cancelled while waiting for an identical request in flight"};
      return res;
    case Flights::Waited::timed_out: break;
    case Flights::Waited::released:  // sent as its own, through the cache, not coalesced again
      if (!timed) return lead(r, key, send);
      const auto left = std::chrono::floor<std::chrono::milliseconds>(deadline - clock_.steady_now());
      if (left <= std::chrono::milliseconds::zero()) break;
      Request own = r;  // with what is left of its total time
      own.total_timeout = left;
      return lead(own, key, send);
  }
  res.error = {TransportErrc::timeout, "the request's total time (" + std::to_string(r.total_timeout->count()) +
                                           " ms) ran out waiting for an identical request in flight"};
  return res;
}

}  // namespace forgemeter::transport_detail
