// hop_counter.h — the per-hop counting callbacks shared by Transport and CurlMeter.
//
// Installed on an easy handle for one curl_easy_perform, a HopCounter turns
// what libcurl reports into Meter records:
//   * CURLOPT_PREREQFUNCTION fires once per request libcurl puts on the wire
//     (each redirect hop it follows, each resend on a fresh connection after a
//     dead reused one); CURLINFO_EFFECTIVE_URL read there is that request's
//     URL. Each firing is one record_request charged to that URL's host/API.
//   * CURLOPT_HEADERFUNCTION sees each answer's status line and headers; the
//     blank line closing a non-1xx block is that request's record_answer, with
//     the rate-limit headers of the block.
//   * finish(): a request sent but never answered gets a kNoAnswer answer; a
//     perform that failed before anything was sent (resolve, connect, TLS)
//     is one attempt with no answer, charged to the URL libcurl was trying.
// The installation is charged only on hops to the origin (scheme, host, port)
// of the first URL, the only ones that carry its credential.
//
// Thread-safety: one HopCounter per perform, used by the performing thread.
// Errors: the callbacks never throw (libcurl is C); a callback that cannot
// allocate stops counting detail, never the transfer.
#pragma once

#include <curl/curl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "forgemeter/meter.h"
#include "forgemeter/transport.h"

namespace forgemeter::transport_detail {

using HeaderFn = std::size_t (*)(char*, std::size_t, std::size_t, void*);
using PrereqFn = int (*)(void*, char*, char*, int, int);

// The host and API of the last hop URL seen on one handle: a request that
// goes to the same URL again is not parsed again.
struct HopCache {
  std::string url, host;
  Api api = Api::rest;
};

class HopCounter {
 public:
  // `origin_url`: the request's own URL (where its installation's credential
  // goes) and `origin` its origin_key(); both "" = those of the first hop.
  // Both are viewed, not copied: they must outlive the counter.
  HopCounter(Meter& meter, Lane lane, std::uint64_t installation, std::string_view origin_url = {},
             std::string_view origin = {});
  HopCounter(const HopCounter&) = delete;  // views its own strings
  HopCounter& operator=(const HopCounter&) = delete;

  // Keep the headers of the latest answer block (for Response::headers).
  void keep_headers(bool on) noexcept { keep_headers_ = on; }
  // Callbacks to call after ours (set by a CurlMeter user).
  void chain(HeaderFn header, void* header_data, PrereqFn prereq, void* prereq_data) noexcept;

  // Reuse (and update) `cache` for the hops' host and API; it must outlive
  // the performs.
  void use_cache(HopCache* cache) noexcept { cache_ = cache; }
  // Installs the callbacks on `h` for the next perform.
  void attach(CURL* h) noexcept;
  // Closes the books on one perform that returned `rc`.
  void finish(CURL* h, CURLcode rc) noexcept;

  const std::vector<Hop>& hops() const noexcept { return hops_; }
  std::vector<Hop>& hops() noexcept { return hops_; }
  // The latest answer block's headers (when keep_headers) and rate-limit values.
  const std::vector<Header>& headers() const noexcept { return headers_; }
  std::vector<Header> take_headers() noexcept { return std::move(headers_); }
  const std::string& remaining() const noexcept { return remaining_; }
  const std::string& retry_after() const noexcept { return retry_after_; }
  const std::string& reset() const noexcept { return reset_; }
  // Whether the latest perform put anything on the wire, and how many
  // requests (more than one: libcurl resent on a fresh connection).
  bool sent_in_last_perform() const noexcept { return sent_this_perform_; }
  int requests_in_last_perform() const noexcept { return requests_this_perform_; }

 private:
  static int on_prereq(void* self, char* remote_ip, char* local_ip, int remote_port, int local_port);
  static std::size_t on_header(char* data, std::size_t size, std::size_t n, void* self);
  void begin_hop(const char* url);
  void answer(int status) noexcept;
  void header_line(std::string_view line);

  Meter& meter_;
  Lane lane_;
  std::uint64_t installation_;
  std::string_view origin_url_;
  std::string_view origin_;
  std::string own_origin_url_, own_origin_;  // the first hop's, when none was given
  CURL* handle_ = nullptr;
  HopCache* cache_ = nullptr;
  HeaderFn next_header_ = nullptr;
  void* next_header_data_ = nullptr;
  PrereqFn next_prereq_ = nullptr;
  void* next_prereq_data_ = nullptr;

  std::vector<Hop> hops_;
  std::uint64_t hop_installation_ = 0;  // the installation the pending hop is charged to
  bool pending_ = false;                // the last hop was sent and is not answered yet
  bool sent_this_perform_ = false;
  int requests_this_perform_ = 0;
  bool keep_headers_ = false;
  int block_status_ = 0;                // status of the header block being read; 0 = none
  std::vector<Header> headers_;
  std::string limit_, remaining_, reset_, retry_after_;
};

}  // namespace forgemeter::transport_detail
