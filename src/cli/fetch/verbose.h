// verbose.h — `forgemeter fetch -v`: each hop of one request on stderr,
// for a person reading it:
//
//   * hop 1 of 3: api.forge.test:8080
//   > GET http://api.forge.test:8080/chain/2
//   > Authorization: Bearer ***
//   < 302
//   * hop 2 of 3: uploads.forge.test:8080 (another origin: no credentials sent)
//   …
//   < HTTP/1.1 200 OK              (the last answer: its status line and fields)
//   < Content-Type: application/json
//
// Composed from the Request and the Response's hops (a redirect hop's method
// follows the Transport's rule, transport/redirect_policy.h), not read off
// the wire: the request headers shown are the ones given with -H and
// --bearer-file, on the hops they went to, and the Basic credentials libcurl
// makes of a URL's userinfo (never a redirect's: the Transport drops it).
// Values of credential headers (Authorization, Cookie, Proxy-Authorization,
// PRIVATE-TOKEN, JOB-TOKEN, the bearer; Set-Cookie of the answer) and a
// password in a URL are shown as ***. Every line is
// shown as core/shown_url.h shows text: a URL's password as ***, a forge's
// control bytes escaped.
#pragma once

#include <string>

#include "forgemeter/transport.h"

namespace forgemeter::cli {

// The -v lines of one request, each ending in '\n'.
std::string verbose_text(const Request& req, const Response& res);

}  // namespace forgemeter::cli
