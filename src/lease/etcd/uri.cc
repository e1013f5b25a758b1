// EtcdStoreOptions::from_uri() and redacted(): the store's text for the
// command line and configuration files.
#include <curl/curl.h>

#include <charconv>
#include <stdexcept>

#include "forgemeter/etcd_store.h"

namespace forgemeter {
namespace {

[[noreturn]] void bad(const std::string& why) { throw std::invalid_argument("etcd store URI: " + why); }

std::string unescaped(std::string_view s) {
  if (s.empty()) return {};  // length 0 would make curl_easy_unescape() read up to a NUL
  int n = 0;
  char* raw = curl_easy_unescape(nullptr, s.data(), static_cast<int>(s.size()), &n);
  if (raw == nullptr) throw std::bad_alloc();
  std::string out(raw, static_cast<std::size_t>(n));
  curl_free(raw);
  if (out.find('\0') != std::string::npos) bad("a NUL byte in an escaped field");
  return out;
}

// HOST:PORT, [V6]:PORT, or HOST (port 2379).
std::string endpoint(std::string_view member, bool tls) {
  if (member.empty()) bad("an empty member in the host list");
  for (char c : member)
    if (static_cast<unsigned char>(c) <= 0x20 || c == '/' || c == '@' || c == '?' || c == '#' || c == 0x7f)
      bad("a member '" + std::string(member) + "' that is not HOST:PORT");
  const auto close = member.rfind(']');
  const auto colon = member.rfind(':');
  const bool has_port = colon != std::string_view::npos && (close == std::string_view::npos || colon > close);
  std::string host(has_port ? member.substr(0, colon) : member);
  if (host.empty()) bad("a member '" + std::string(member) + "' without a host");
  std::string port = has_port ? std::string(member.substr(colon + 1)) : "2379";
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc{} || end != port.data() + port.size() || value == 0 || value > 65535)
    bad("the port of '" + std::string(member) + "' is not 1..65535");
  return (tls ? "https://" : "http://") + host + ":" + port;
}

void set_query(EtcdStoreOptions& o, std::string_view query) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const auto eq = pair.find('=');
    const std::string key(pair.substr(0, eq));
    const std::string value = eq == std::string_view::npos ? std::string() : unescaped(pair.substr(eq + 1));
    if (key == "cacert") {
      o.ca_file = value;
    } else if (key == "cert") {
      o.cert_file = value;
    } else if (key == "key") {
      o.key_file = value;
    } else {
      bad("unknown option '" + key + "' (known: cacert, cert, key)");
    }
  }
}

}  // namespace

EtcdStoreOptions EtcdStoreOptions::from_uri(std::string_view uri) {
  EtcdStoreOptions o;
  bool tls = false;
  if (uri.rfind("etcd://", 0) == 0) {
    uri.remove_prefix(7);
  } else if (uri.rfind("etcds://", 0) == 0) {
    uri.remove_prefix(8);
    tls = true;
  } else {
    bad("it does not start with etcd:// or etcds://");
  }
  if (const auto q = uri.find('?'); q != std::string_view::npos) {
    set_query(o, uri.substr(q + 1));
    uri = uri.substr(0, q);
  }
  const auto slash = uri.find('/');
  std::string_view authority = uri.substr(0, slash);
  if (slash != std::string_view::npos && slash + 1 < uri.size()) {
    o.prefix = unescaped(uri.substr(slash));
    if (o.prefix.back() != '/') o.prefix += '/';
  }
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    const std::string_view info = authority.substr(0, at);
    const auto colon = info.find(':');
    o.user = unescaped(info.substr(0, colon));
    if (colon != std::string_view::npos) o.password = unescaped(info.substr(colon + 1));
    if (o.user.empty()) bad("a password without a user name");
    authority = authority.substr(at + 1);
  }
  while (true) {
    const auto comma = authority.find(',');
    o.endpoints.push_back(endpoint(authority.substr(0, comma), tls));
    if (comma == std::string_view::npos) break;
    authority = authority.substr(comma + 1);
  }
  if (o.cert_file.empty() != o.key_file.empty()) bad("cert= needs key=, and key= needs cert=");
  return o;
}

std::string EtcdStoreOptions::redacted() const {
  const bool tls = !endpoints.empty() && endpoints.front().rfind("https://", 0) == 0;
  std::string out = tls ? "etcds://" : "etcd://";
  if (!user.empty()) out += user + (password.empty() ? "@" : ":***@");
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    const auto& e = endpoints[i];
    out += (i ? "," : "") + e.substr(e.find("://") + 3);
  }
  out += prefix;
  std::string query;
  const std::pair<const char*, const std::string*> files[] = {
      {"cacert", &ca_file}, {"cert", &cert_file}, {"key", &key_file}};
  for (const auto& [k, v] : files)
    if (!v->empty()) query += (query.empty() ? "?" : "&") + std::string(k) + "=" + *v;
  return out + query;
}

}  // namespace forgemeter
