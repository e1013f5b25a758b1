// easy_options.h — the libcurl options every request of a Transport is sent with.
//
// apply_connection() sets what does not change between hops: TLS verification
// (always on unless insecure_skip_tls_verify_for_tests), CA file or PEM,
// HTTP/2 over TLS, http/https only, timeouts, no signals, the body sink.
// apply_request() sets what may differ from one request to the next (and is
// all that a handle reused without a reset needs again); apply_hop() sets the
// method, URL, headers and body of one hop.
#pragma once

#include <curl/curl.h>

#include <memory>
#include <string>
#include <vector>

#include "forgemeter/transport.h"

namespace forgemeter::transport_detail {

struct SlistDeleter {
  void operator()(curl_slist* l) const noexcept { curl_slist_free_all(l); }
};
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;

// An slist of `items`; throws std::bad_alloc.
Slist make_slist(const std::vector<std::string>& items);

// Checks "host:port:address[,address...]" (with an optional leading '+');
// returns why it is unusable, or "" when fine.
std::string check_resolve_entry(const std::string& entry);

struct ConnectionSettings {
  const TransportOptions* options = nullptr;
  curl_slist* resolve = nullptr;  // loaded into the shared DNS cache on a fresh handle
  bool load_resolve = false;
  std::chrono::milliseconds connect_timeout{};
  std::chrono::milliseconds timeout{};
  std::string* body_sink = nullptr;
  char* error_buffer = nullptr;  // CURL_ERROR_SIZE bytes
};

// Everything, after a curl_easy_reset (calls apply_request too).
void apply_connection(CURL* h, const ConnectionSettings& s) noexcept;
// Only what differs between requests on one handle: timeouts, body sink,
// error buffer.
void apply_request(CURL* h, const ConnectionSettings& s) noexcept;

// `headers` must outlive the perform; `body` is sent when `with_body`.
void apply_hop(CURL* h, const std::string& method, const std::string& url, curl_slist* headers,
               const std::string& body, bool with_body) noexcept;

}  // namespace forgemeter::transport_detail
