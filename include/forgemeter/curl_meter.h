// forgemeter/curl_meter.h — metering a CURL* handle you drive yourself.
//
//   CURL* h = curl_easy_init();                 // your handle, your options
//   forgemeter::CurlMeter metered(h, meter, {.installation = 101});
//   metered.chain_header_callback(my_header_cb, my_data);  // instead of CURLOPT_HEADERFUNCTION
//   int rc = metered.perform();                 // curl_easy_perform + bookkeeping
//
// A CurlMeter puts Transport's per-hop counting callbacks on one handle for
// one perform, which is then counted exactly as Transport counts: one
// record_request per request on the wire (each redirect hop, each resend),
// one record_answer each (with its elapsed time, AnswerRecord::elapsed), an
// attempt that failed before sending counted once.
// Your own header or prerequest callback goes through chain_*: setting
// CURLOPT_HEADERFUNCTION or CURLOPT_PREREQFUNCTION yourself while a CurlMeter
// is attached disables the counting; when it ends it re-installs yours (or
// none). Driving curl_easy_perform yourself, call finish(result) after it.
// Why, and what differs from Transport: docs/transport-internals.md.
//
// Thread-safety: one CurlMeter per handle and perform, on the performing
// thread (as libcurl requires of the handle anyway). The Meter may be shared.
// Ownership: the handle and Meter are borrowed and must outlive the CurlMeter.
// Errors: the constructor throws std::invalid_argument for a null handle;
// nothing else throws.
#pragma once

#include "forgemeter/export.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "forgemeter/lane.h"
#include "forgemeter/meter.h"
#include "forgemeter/transport.h"

using CURL = void;  // exactly libcurl's own typedef: no <curl/curl.h> needed here

namespace forgemeter {

struct FORGEMETER_API MeterTag {
  std::optional<Lane> lane{};  // nullopt: current_lane() at construction
  // 0 = none. Charged only to hops on the origin (scheme, host, port) of the
  // handle's first request: the hops its credential is meant for. (Redirects
  // and credentials are libcurl's business here, and the body yours: a 403
  // with neither a spent budget nor a Retry-After is `4xx`, never `secondary`.)
  std::uint64_t installation = 0;
};

class FORGEMETER_API CurlMeter {
 public:
  using HeaderCallback = std::size_t (*)(char* data, std::size_t size, std::size_t nitems, void* userdata);
  using PrereqCallback = int (*)(void* clientp, char* conn_primary_ip, char* conn_local_ip, int conn_primary_port,
                                 int conn_local_port);

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
  // Closes the books on a perform the caller ran itself (curl_easy_perform or
  // a multi interface); `curl_code` is its CURLcode. The destructor finishes
  // a perform that was not finished.
  void finish(int curl_code) noexcept;

  // What was counted so far: one entry per request put on the wire.
  const std::vector<Hop>& hops() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace forgemeter
