// header_filter.h — which header fields cross the proxy, each way (RFC 9110
// §7.6.1): a hop-by-hop field (Connection, Keep-Alive, Proxy-Connection,
// Proxy-Authenticate, Proxy-Authorization, TE, Trailer, Transfer-Encoding,
// Upgrade) and every field a Connection header names belongs to one
// connection and never crosses.
//
// Inbound (client → forge) also drops Host (the Transport sets it), Expect
// (libcurl sends its own), Content-Length when the body is re-framed, and
// every X-Forgemeter-* field, after reading the two it knows (the lane and
// the installation: the proxy's words, never the forge's). A name that is
// not an RFC 9110 token, or a name or value holding CR, LF or NUL, refuses
// the whole request (400, nothing sent): such a field would split a line.
// Outbound (forge → client) also drops Content-Length and Transfer-Encoding
// when the serving room re-frames the body, and any field a client could
// not be sent (a name not a token, CR, LF or NUL in the value): a hostile
// forge's field is dropped, its answer still goes through.
// Thread-safety: pure functions. Errors: none (but std::bad_alloc).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "forgemeter/headers.h"
#include "serve/exchange.h"

namespace forgemeter::proxy {

using serve::Field;

inline constexpr std::string_view kLaneHeader = "X-Forgemeter-Lane";
inline constexpr std::string_view kInstallationHeader = "X-Forgemeter-Installation";
inline constexpr std::string_view kForgemeterPrefix = "X-Forgemeter-";

// RFC 9110's hop-by-hop fields, any case (Connection's own list aside).
bool is_hop_by_hop(std::string_view name) noexcept;

// Why a field may not be forwarded as written (a name not a token, CR, LF
// or NUL in name or value), or nullopt.
std::optional<std::string> why_bad_field(std::string_view name, std::string_view value);

struct Inbound {
  std::vector<Field> forward;               // what goes to the forge, in the client's order
  std::optional<std::string> lane;          // X-Forgemeter-Lane's value, as sent (not validated here)
  std::optional<std::string> installation;  // X-Forgemeter-Installation's value, as sent
  std::optional<std::string> refused;       // why the request is refused (400); then `forward` is empty
};

// The client's fields as the forge may see them. `reframed`: the body is
// sent with a length of the Transport's own (drop the client's Content-Length).
Inbound filter_request(const std::vector<Field>& fields, bool reframed = true);

// The forge's fields as the client may see them.
std::vector<Field> filter_response(const Headers& fields, bool reframed = true);
std::vector<Field> filter_response(const std::vector<Field>& fields, bool reframed = true);

}  // namespace forgemeter::proxy
