// hop_headers.h — the header lines a hop is sent with.
//
// The caller's headers as given, but credentials — the bearer and any
// credential header (redirect_policy.h: Authorization, Cookie, GitLab's
// PRIVATE-TOKEN, …) — only on a hop to the
// request's own origin; the lane in the Transport's lane header, if it has
// one; and an empty `Expect:` with a body, so libcurl asks for no
// 100-continue round trip.
//
// Errors: throws std::bad_alloc.
#pragma once

#include <curl/curl.h>

#include <string>

#include "forgemeter/lane.h"
#include "forgemeter/transport.h"
#include "transport/handle_pool.h"

namespace forgemeter::transport_detail {

// hop_headers() when the handle's list was built from other inputs: builds
// a new one and records what it was built from.
curl_slist* build_hop_headers(HandleState& st, const Request& r, bool own_origin, bool with_body, Lane lane,
                              const std::string& lane_header);

// The header list of a hop of `r`, built into libcurl's list on `st` and
// reused while a later hop on that handle is built from the same inputs (the
// check is inline: it is every request's). It lives until the next call on `st`.
inline curl_slist* hop_headers(HandleState& st, const Request& r, bool own_origin, bool with_body, Lane lane,
                               const std::string& lane_header) {
  if (st.headers && st.same_origin_from == own_origin && st.with_body_from == with_body && st.lane_from == lane &&
      st.bearer_from == r.bearer && st.headers_from == r.headers)
    return st.headers.get();  // the usual case: the same request again
  return build_hop_headers(st, r, own_origin, with_body, lane, lane_header);
}

}  // namespace forgemeter::transport_detail
