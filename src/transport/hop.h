// hop.h — one hop of a Transport request on a pooled handle: the handle made
// ready to send it, then one curl_easy_perform with the counting callbacks on.
//
// libcurl 7.88 limits dead-connection resends per handle (5 in its lifetime,
// until a reset): a handle is reset unless its last perform resent nothing,
// and whenever the hop's shape (method, body or not) changes, so no option of
// another method lingers. On a handle kept without a reset, libcurl still
// holds every option set since: only what differs is set again.
//
// Thread-safety: a taken handle belongs to the thread performing its request.
// Errors: prepare_handle throws std::bad_alloc; perform_prepared never throws.
#pragma once

#include <curl/curl.h>

#include <stop_token>
#include <string>

#include "forgemeter/transport.h"
#include "transport/easy_options.h"
#include "transport/handle_pool.h"
#include "transport/hop_counter.h"

namespace forgemeter::transport_detail {

// Where a hop goes and how: the request's URL and method first, then each
// redirect's. `url` is viewed: it must outlive the hop.
struct HopLine {
  const std::string* url = nullptr;
  std::string method;
  bool with_body = false;  // a body is set: the request has one, or its method always sends one
  bool fed = false;        // that body is read from the request's body_source (body_feed.h)
};

// The first hop of `req`.
inline HopLine first_hop(const Request& req) {
  const std::string& m = req.method;
  const bool fed = static_cast<bool>(req.body_source);
  return {&req.url, m, fed || !req.body.empty() || m == "POST" || m == "PUT" || m == "PATCH", fed};
}

// Makes `handle` ready to send `hop` with `headers` and `req`'s body (both
// must outlive the perform; a fed body through the handle's BodyFeed, begun by the caller). `settings` are the request's; the resolve entries
// are loaded by a handle's first reset only.
void prepare_handle(HandlePool::Handle& handle, const ConnectionSettings& settings, const HopLine& hop,
                    curl_slist* headers, const Request& req);

// Performs the prepared hop, counted by `counter`; the answer's body goes to
// the handle's tap (begun for this hop by the caller). Returns libcurl's result: CURLE_ABORTED_BY_CALLBACK
// within about a second of `stop` firing (the attempt is then counted with
// no answer). `stop` must outlive the call.
CURLcode perform_prepared(HandlePool::Handle& handle, HopCounter& counter, const std::stop_token& stop) noexcept;

}  // namespace forgemeter::transport_detail
