// hop_headers.h — the header lines a hop is sent with.
//
// The caller's headers as given, but credentials — the bearer and any
// Authorization, Cookie or Proxy-Authorization header — only on a hop to the
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

// The header list of a hop of `r`, built into libcurl's list on `st` and
// reused while a later hop on that handle is built from the same inputs. It
// lives until the next call on `st`.
curl_slist* hop_headers(HandleState& st, const Request& r, bool own_origin, bool with_body, Lane lane,
                        const std::string& lane_header);

}  // namespace forgemeter::transport_detail
