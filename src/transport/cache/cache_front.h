// cache_front.h — the Transport's conditional cache and coalescing, in front
// of the path every request takes to the wire (docs/cache.md).
//
// A request the cache takes (cache_key.h) is filed under its key. One of its
// kind already in flight is followed (coalescing.h): the follower gets a copy
// of the leader's answer, marked `coalesced`, with no hops (it sent nothing),
// and the Meter counts it `coalesced`. Otherwise it leads: with a kept entry
// whose Vary matches, it goes out with If-None-Match / If-Modified-Since; a
// 304 to that, every hop on its own origin, is answered with the kept status,
// headers (updated by the 304's own fields, its rate-limit headers among
// them; never its Set-Cookie) and body, marked `revalidated`, and the Meter
// counts it `revalidated` (the 304 was counted as the answer it is); the
// entry is updated so, or dropped when the 304 says it is not kept
// (no-store, Vary: *). A 304 that left the origin, or whose ETag is not the
// kept one's, drops the entry and the request goes out once more without a
// validator. A 200 replaces the entry (or drops it when not kept:
// cache_entry.h); a 404 or 410 drops it; any other answer leaves it.
// A streamed request (Request::on_body) the cache takes is held back from its
// sink while its body fits max_entry_bytes, then kept, revalidated and
// coalesced as any (its answer, or a follower's copy, handed to the sink
// whole); past the bound it streams as it comes, is not kept, and its
// followers are released then to send their own.
//
// Thread-safety: perform() may be called from any number of threads at once.
// Errors: throws std::bad_alloc only (and what `send` throws).
#pragma once

#include <functional>

#include "forgemeter/cache.h"
#include "forgemeter/clock.h"
#include "forgemeter/exchange.h"
#include "forgemeter/meter.h"
#include "transport/cache/cache_key.h"
#include "transport/cache/coalescing.h"
#include "transport/cache/response_cache.h"

namespace forgemeter::transport_detail {

class CacheFront {
 public:
  // `meter` and `clock` are borrowed: they must outlive it.
  CacheFront(const CacheOptions& options, Meter& meter, const Clock& clock);

  // Whether perform() should be asked at all (the cache is configured).
  static bool wanted(const CacheOptions& options) noexcept { return options.max_bytes > 0; }

  using Send = std::function<Response(const Request&)>;
  // `r` answered through the cache, `send` putting what it must on the wire.
  Response perform(const Request& r, const Send& send);

  CacheFigures figures() const {
    CacheFigures s = entries_.figures();
    s.following = flights_.following();
    return s;
  }

 private:
  // A leader's answer: its body whole in `res` (for a streamed request, still
  // to go to its sink), unless `streamed` (past the bound: the sink had it,
  // and `ticket`'s followers were released then).
  struct Led {
    Response res;
    bool streamed = false;
  };
  Led lead(const Request& r, const std::string& key, const Send& send, Flights::Ticket* ticket = nullptr);
  static Response handed(const Request& r, Response res);
  Response follow(const Request& r, const std::string& key, Flights::Ticket& ticket, const Send& send);
  void refresh(const std::string& key, const Request& r, const CacheEntry& kept, const Headers& served);
  void count(const Request& r, void (Meter::*record)(const RequestKey&, UtcMillis) noexcept);

  const CacheOptions options_;
  Meter& meter_;
  const Clock& clock_;
  KeyHasher keys_;
  ResponseCache entries_;
  Flights flights_;
};

}  // namespace forgemeter::transport_detail
