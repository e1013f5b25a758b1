// forgemeter/curl_meter.h — metering a CURL* handle you drive yourself.
//
// For code that already has its own libcurl easy handles: a CurlMeter installs
// the same per-hop counting callbacks Transport uses on one handle for one
// perform, so that perform is counted exactly as Transport would count it —
// one Meter::record_request per request on the wire (each redirect hop libcurl
// follows with CURLOPT_FOLLOWLOCATION, each resend on a fresh connection), one
// record_answer per request (kNoAnswer when none came), and an attempt that
// failed before sending counted once with no answer.
//
//   CURL* h = ...;                              // your handle, your options
//   forgemeter::CurlMeter metered(h, meter, {.installation = 101});
//   metered.chain_header_callback(my_header_cb, my_data);  // instead of CURLOPT_HEADERFUNCTION
//   int rc = metered.perform();                 // curl_easy_perform + bookkeeping
//
// Because libcurl cannot tell anyone which callbacks a handle has, a header or
// prerequest callback of your own must be given to the CurlMeter (chain_*),
// which calls it after counting; setting CURLOPT_HEADERFUNCTION or
// CURLOPT_PREREQFUNCTION yourself while a CurlMeter is attached disables the
// counting. When the CurlMeter ends it re-installs your chained callbacks (or
// none) on the handle.
//
// If you call curl_easy_perform (or a multi interface) yourself, call
// finish(result) afterwards so an attempt that failed before sending is
// counted. The destructor finishes a perform that was not finished.
//
// The installation is charged only to hops on the origin (scheme, host, port)
// of the handle's first request (the hops its credential is meant for); the
// lane is MeterTag::lane, or the thread's current_lane() at construction.
// Credential forwarding on redirects is libcurl's (and your options')
// business here; Transport enforces its own. The body is yours too: a 403
// with neither a spent budget nor a Retry-After is classed `4xx`, not
// `secondary` by its body as Transport classes it.
//
// Thread-safety: one CurlMeter per handle and perform, on the performing
// thread (as libcurl requires of the handle anyway). The Meter may be shared.
// Ownership: the handle and Meter are borrowed and must outlive the CurlMeter.
// Errors: the constructor throws std::invalid_argument for a null handle;
// nothing else throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "forgemeter/lane.h"
#include "forgemeter/meter.h"
#include "forgemeter/transport.h"

typedef void CURL;  // exactly libcurl's own typedef: no <curl/curl.h> needed here

namespace forgemeter {

struct MeterTag {
  std::optional<Lane> lane;       // nullopt: current_lane() at construction
  std::uint64_t installation = 0; // 0 = none
};

class CurlMeter {
 public:
  using HeaderCallback = std::size_t (*)(char* data, std::size_t size, std::size_t nitems, void* userdata);
  using PrereqCallback = int (*)(void* clientp, char* conn_primary_ip, char* conn_local_ip,
                                 int conn_primary_port, int conn_local_port);

  CurlMeter(CURL* handle, Meter& meter, MeterTag tag = {});
  ~CurlMeter();
  CurlMeter(const CurlMeter&) = delete;
  CurlMeter& operator=(const CurlMeter&) = delete;

  // Your own callbacks, called after the meter's (header) or before it counts
  // (prerequest: a request your callback aborts is not sent and not counted).
  void chain_header_callback(HeaderCallback cb, void* userdata) noexcept;
  void chain_prereq_callback(PrereqCallback cb, void* clientp) noexcept;

  // curl_easy_perform(handle), then finish(); returns the CURLcode as an int.
  int perform() noexcept;
  // Closes the books on a perform the caller ran itself; `curl_code` is its CURLcode.
  void finish(int curl_code) noexcept;

  // What was counted so far: one entry per request put on the wire.
  const std::vector<Hop>& hops() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace forgemeter
