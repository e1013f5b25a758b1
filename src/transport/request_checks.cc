#include "transport/request_checks.h"

#include "core/ascii.h"
#include "transport/errors.h"
#include "transport/redirect_policy.h"

namespace forgemeter::transport_detail {
std::optional<std::string> check_request(const Request& r, HandleState& known) {
  if (!is_token(r.method)) return "the method \"" + terminal_text(r.method) + "\" is not an HTTP token";
  if (known.checked_origin.empty() || r.url != known.checked_url) {
    if (r.url.empty() || has_control(r.url) || r.url.find(' ') != std::string::npos)
      return "the URL is empty or has a space or control byte";
    auto origin = origin_of(r.url);
    if (!origin || origin->host.empty()) return "the URL \"" + terminal_text(r.url) + "\" cannot be parsed";
    if (!allowed_scheme(origin->scheme))
      return "only http and https URLs are sent, not \"" + terminal_text(origin->scheme) + "\"";
    known.checked_url = r.url;
    known.checked_origin = origin->key();
  }
  for (const auto& [name, value] : r.headers) {
    if (!is_token(name)) return "the header name \"" + terminal_text(name) + "\" is not an HTTP token";
    if (!is_field_value(value)) return "the value of header " + name + " has a control byte";
    if (core_detail::iequals(name, "Host")) return "the Host header comes from the URL; do not set it";
  }
  if (!is_field_value(r.bearer)) return "the bearer credential has a control byte";
  if (r.body_source && !r.body.empty()) return "a request has a body or a body_source, not both";
  if (r.body_source && r.method == "HEAD") return "a HEAD request carries no body: no body_source";
  if (r.body_length && !r.body_source) return "body_length is the length of a body_source's body: set it with one";
  if (r.total_timeout && *r.total_timeout > kLongestTimeout) return "total_timeout is past 100000h";
  for (const auto& [name, t] : {std::pair{"timeout", r.timeout}, std::pair{"connect_timeout", r.connect_timeout}})
    if (t && !timeout_in_range(*t)) return std::string(name) + " is out of range: 0 (none) to 100000h";
  return {};
}

}  // namespace forgemeter::transport_detail
