// easy_options.h — the libcurl options every request of a Transport is sent with.
//
// apply_connection() sets everything a handle needs after a reset: TLS
// verification (always on unless insecure_skip_tls_verify_for_tests), CA file
// or PEM, HTTP/2 over TLS, http/https only, timeouts, no signals, the body
// tap (body_tap.h), body feed (body_feed.h) and error buffer. apply_timeouts() sets what may differ
// from one request to the next; apply_hop() sets the method, URL, headers and body of
// one hop (apply_url, apply_header_list, apply_method: each alone, for a
// handle whose other options are still in place).
#pragma once

#include <curl/curl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "forgemeter/transport.h"
#include "transport/body_feed.h"
#include "transport/body_tap.h"

namespace forgemeter::transport_detail {

struct SlistDeleter {
  void operator()(curl_slist* l) const noexcept { curl_slist_free_all(l); }
};
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;

// An slist of `items`; throws std::bad_alloc.
Slist make_slist(const std::vector<std::string>& items);

// Checks "host:port:address[,address...]" (with an optional leading '+');
// returns why it is unusable, or nullopt when fine.
std::optional<std::string> check_resolve_entry(const std::string& entry);

struct ConnectionSettings {
  const TransportOptions* options = nullptr;
  curl_slist* resolve = nullptr;  // loaded into the shared DNS cache on a fresh handle
  bool load_resolve = false;
  std::chrono::milliseconds connect_timeout{};
  std::chrono::milliseconds timeout{};
  BodyTap* body_tap = nullptr;    // must outlive the handle's performs (or the next reset)
  char* error_buffer = nullptr;   // CURL_ERROR_SIZE bytes; the same
  BodyFeed* body_feed = nullptr;  // the same; nullptr: the handle never uploads from a source
};

// Everything, after a curl_easy_reset (calls apply_timeouts too).
void apply_connection(CURL* h, const ConnectionSettings& s) noexcept;
// Only what may differ between requests on one handle: the timeouts.
void apply_timeouts(CURL* h, const ConnectionSettings& s) noexcept;

// `headers` must outlive the perform; `body` is sent when `with_body`.
void apply_hop(CURL* h, const std::string& method, const std::string& url, curl_slist* headers, const std::string& body,
               bool with_body) noexcept;
void apply_url(CURL* h, const std::string& url) noexcept;
void apply_header_list(CURL* h, curl_slist* headers) noexcept;
void apply_method(CURL* h, const std::string& method, const std::string& body, bool with_body) noexcept;
// `method` with its body read from the handle's BodyFeed: `length` bytes, or
// chunked when nullopt (HTTP/1.1).
void apply_fed_method(CURL* h, const std::string& method, std::optional<std::uint64_t> length) noexcept;

}  // namespace forgemeter::transport_detail
