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

bool resource_byte_kept(unsigned char c) noexcept { return c != ':' && host_byte_kept(c); }

// The bytes a line host (resource) may hold: the kept ones and `%`.
constexpr auto kLineHostByte = [] {
  std::array<bool, 256> t{};
  for (unsigned c = 0; c < 256; ++c) t[c] = host_byte_kept(static_cast<unsigned char>(c)) || c == '%';
  return t;
}();

bool reserved(std::string_view host) noexcept { return host == kOtherHosts || host == kNoHost; }

// `raw` ASCII lower-cased, every byte `kept` refuses escaped.
template <class Kept>
std::string display(std::string_view raw, Kept kept) {
  std::string out;
  out.reserve(raw.size());
  for (char ch : raw) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
    if (kept(c))
      out += static_cast<char>(c);
    else
      append_escaped(out, c);
  }
  return out;
}

// `text` as it is when every byte is kept or `%` (already in display form),
// else with every other byte escaped: no value can break a line.
template <class Kept>
void append_safe(std::string& out, std::string_view text, Kept kept) {
  bool safe = true;
  for (char ch : text) safe = safe && (kept(static_cast<unsigned char>(ch)) || ch == '%');
  if (safe) {
    out += text;
    return;
  }
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (kept(c) || c == '%')
      out += ch;
    else
      append_escaped(out, c);
  }
}

}  // namespace

std::string display_host(std::string_view raw) {
  if (raw.empty()) return std::string(kNoHost);
  return display(raw, host_byte_kept);
}

std::string display_resource(std::string_view raw) { return display(raw, resource_byte_kept); }

void append_resource(std::string& out, std::string_view resource) { append_safe(out, resource, resource_byte_kept); }

std::size_t line_resource_bytes(std::string_view text) noexcept {
  std::size_t n = 0;
  while (n < text.size() && text[n] != ':' && kLineHostByte[static_cast<unsigned char>(text[n])]) ++n;
  return n;
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
  if (host.empty()) {
    out += kNoHost;
    return;
  }
  if (reserved(host)) {
    out += host;
    return;
  }
  append_safe(out, host, host_byte_kept);
}

}  // namespace forgemeter::meter
