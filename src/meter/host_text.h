// Hosts as lines write them. Hosts come from URLs a forge or a caller chose
// (a redirect can name anything), so before a host reaches a line every byte
// that could break the grammar, a grep or a terminal is escaped as %XX.
#pragma once

#include <string>
#include <string_view>

namespace forgemeter::meter {

// Whether a line keeps byte `c` of a host as it is: printable ASCII except
// space , = " \ ( ) — and `%`, which only ever starts an escape.
constexpr bool host_byte_kept(unsigned char c) noexcept {
  if (c <= 0x20 || c >= 0x7f) return false;
  switch (c) {
    case ',':
    case '=':
    case '"':
    case '\\':
    case '(':
    case ')':
    case '%': return false;
    default: return true;
  }
}

// The host as the Meter names it: ASCII lower-cased, every byte not kept
// escaped as %XX (so `%` itself becomes %25), the empty host kNoHost.
std::string display_host(std::string_view raw);

// For format_line(), which takes hosts already in display form: writes `host`
// unchanged when it is a display host (or kOtherHosts / kNoHost), and escapes
// any byte that is neither kept nor `%` otherwise, so no value can break a line.
void append_host(std::string& out, std::string_view host);

// Whether `host` is one format_line() writes unchanged (what the parser accepts).
bool is_line_host(std::string_view host) noexcept;

// How many leading bytes of `text` a line host may hold (kept bytes and `%`):
// the parser reads a host in one pass with it.
std::size_t line_host_bytes(std::string_view text) noexcept;

// Resources (X-RateLimit-Resource values) are written the same way, with ':'
// escaped too (it ends a resource in a budget entry); "" stays "".
std::string display_resource(std::string_view raw);
void append_resource(std::string& out, std::string_view resource);
std::size_t line_resource_bytes(std::string_view text) noexcept;

}  // namespace forgemeter::meter
