#include "transport/easy_options.h"

#include <charconv>
#include <new>

namespace forgemeter::transport_detail {
namespace {

long ms(std::chrono::milliseconds d) noexcept { return static_cast<long>(d.count()); }

}  // namespace

Slist make_slist(const std::vector<std::string>& items) {
  curl_slist* head = nullptr;
  for (const auto& s : items) {
    curl_slist* next = curl_slist_append(head, s.c_str());
    if (!next) {
      curl_slist_free_all(head);
      throw std::bad_alloc();
    }
    head = next;
  }
  return Slist(head);
}

std::optional<std::string> check_resolve_entry(const std::string& entry) {
  std::string_view e = entry;
  if (!e.empty() && e.front() == '+') e.remove_prefix(1);
  const auto c1 = e.find(':');
  const auto c2 = c1 == std::string_view::npos ? c1 : e.find(':', c1 + 1);
  if (c1 == 0 || c2 == std::string_view::npos || c2 + 1 >= e.size())
    return "resolve entry \"" + entry + "\" is not host:port:address";
  unsigned port = 0;
  auto [p, ec] = std::from_chars(e.data() + c1 + 1, e.data() + c2, port);
  if (ec != std::errc{} || p != e.data() + c2 || port == 0 || port > 65535)
    return "resolve entry \"" + entry + "\" has no valid port";
  for (char c : entry)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return "resolve entry has a space or control byte";
  return {};
}

void apply_connection(CURL* h, const ConnectionSettings& s) noexcept {
  const TransportOptions& o = *s.options;
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);  // the transport follows redirects itself
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, o.insecure_skip_tls_verify_for_tests ? 0L : 1L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, o.insecure_skip_tls_verify_for_tests ? 0L : 2L);
  if (!o.ca_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, o.ca_file.c_str());
  if (!o.ca_pem.empty()) {
    curl_blob blob{const_cast<char*>(o.ca_pem.data()), o.ca_pem.size(), CURL_BLOB_NOCOPY};
    curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &blob);
  }
  if (s.load_resolve && s.resolve) curl_easy_setopt(h, CURLOPT_RESOLVE, s.resolve);
  curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(h, CURLOPT_USERAGENT, o.user_agent.c_str());
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, o.decompress ? "" : nullptr);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &BodyTap::write);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, s.body_tap);
  if (s.body_feed) {
    curl_easy_setopt(h, CURLOPT_READFUNCTION, &BodyFeed::read);  // never libcurl's default: stdin
    curl_easy_setopt(h, CURLOPT_READDATA, s.body_feed);
  }
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, s.error_buffer);
  apply_timeouts(h, s);
}

void apply_timeouts(CURL* h, const ConnectionSettings& s) noexcept {
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms(s.connect_timeout));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms(s.timeout));
}

void apply_hop(CURL* h, const std::string& method, const std::string& url, curl_slist* headers, const std::string& body,
               bool with_body) noexcept {
  apply_url(h, url);
  apply_header_list(h, headers);
  apply_method(h, method, body, with_body);
}

void apply_url(CURL* h, const std::string& url) noexcept { curl_easy_setopt(h, CURLOPT_URL, url.c_str()); }

void apply_header_list(CURL* h, curl_slist* headers) noexcept { curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers); }

void apply_method(CURL* h, const std::string& method, const std::string& body, bool with_body) noexcept {
  if (method == "HEAD") {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (method == "GET" && !with_body) {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else {
    if (method != "POST") curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
    if (with_body || method == "POST") {
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.data());
    }
  }
}

void apply_fed_method(CURL* h, const std::string& method, std::optional<std::uint64_t> length) noexcept {
  // A POST without POSTFIELDS reads its body from CURLOPT_READFUNCTION; its
  // size -1 (unknown) makes libcurl send HTTP/1.1 chunked.
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  if (method != "POST") curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, length ? static_cast<curl_off_t>(*length) : curl_off_t{-1});
}

}  // namespace forgemeter::transport_detail
