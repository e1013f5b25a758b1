#include "meter/host_text.h"

#include <array>

#include "forgemeter/lines.h"

namespace forgemeter::meter {

namespace {

constexpr char kHex[] = "0123456789ABCDEF";

void append_escaped(std::string& out, unsigned char c) {
  out += '%';
  out += kHex[c >> 4];
  out += kHex[c & 0xf];
}

// The bytes a line host may hold: the kept ones and `%`.
constexpr auto kLineHostByte = [] {
  std::array<bool, 256> t{};
  for (unsigned c = 0; c < 256; ++c) t[c] = host_byte_kept(static_cast<unsigned char>(c)) || c == '%';
  return t;
}();

bool reserved(std::string_view host) noexcept { return host == kOtherHosts || host == kNoHost; }

}  // namespace

std::string display_host(std::string_view raw) {
  if (raw.empty()) return std::string(kNoHost);
  std::string out;
  out.reserve(raw.size());
  for (char ch : raw) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
    if (host_byte_kept(c))
      out += static_cast<char>(c);
    else
      append_escaped(out, c);
  }
  return out;
}

bool is_line_host(std::string_view host) noexcept {
  if (host.empty()) return false;
  if (reserved(host)) return true;
  for (char ch : host)
    if (!kLineHostByte[static_cast<unsigned char>(ch)]) return false;
  return true;
}

std::size_t line_host_bytes(std::string_view text) noexcept {
  std::size_t n = 0;
  while (n < text.size() && kLineHostByte[static_cast<unsigned char>(text[n])]) ++n;
  return n;
}

void append_host(std::string& out, std::string_view host) {
  if (is_line_host(host)) {
    out += host;
    return;
  }
  if (host.empty()) {
    out += kNoHost;
    return;
  }
  for (char ch : host) {
    auto c = static_cast<unsigned char>(ch);
    if (host_byte_kept(c) || c == '%')
      out += ch;
    else
      append_escaped(out, c);
  }
}

}  // namespace forgemeter::meter
