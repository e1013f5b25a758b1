// exit.h — the exit code of one `forgemeter fetch` of a URL, curl's
// number where curl has one for the same outcome (curl(1), "EXIT CODES"):
//
//   0   an answer came (any status; without -f)
//   22  -f/--fail and the answer's status is 400 or more
//   3   the URL or method cannot be used; nothing was sent (curl: URL malformed)
//   6   the host name did not resolve
//   7   the connection was refused or failed
//   28  a timeout (-m/--max-time or --connect-timeout)
//   35  TLS handshake or certificate verification failed
//   42  cancelled
//   47  more redirects than --max-redirs
//   56  the connection broke while sending or receiving
//   1   anything else: a redirect to a scheme other than http/https, or an
//       answer that is not HTTP/1 or 2 (HTTP/0.9; curl's 1 too: unsupported
//       protocol), a request forgemeter refused to send (lane gate, reserve,
//       paused installation), another libcurl failure (a header too large)
//
// A spent budget or a secondary rate limit is an answer (403/429): 0, or 22
// with -f, as curl would do. 2 (usage), 23 (-o cannot be written) and
// 130/143/129 (SIGINT/SIGTERM/SIGHUP) are decided elsewhere (command.cc).
#pragma once

#include <string>

#include "forgemeter/transport.h"

namespace forgemeter::cli {

inline constexpr int kExitHttpError = 22;   // curl's CURLE_HTTP_RETURNED_ERROR
inline constexpr int kExitWriteError = 23;  // curl's CURLE_WRITE_ERROR

// Whether the response is an answer to hand to the user (its body, its headers).
bool answered(const Response& res) noexcept;

int fetch_exit_code(const Response& res, bool fail_on_http_error) noexcept;

// The one-line error for stderr when fetch_exit_code() is not 0 (curl's
// "curl: (7) Failed to connect…"), terminal-safe.
std::string fetch_error_line(const Request& req, const Response& res, int exit_code);

}  // namespace forgemeter::cli
