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
//     the rate-limit headers of the block — or, when the answer's class
//     depends on its body (a 403 that may say "secondary rate limit", a
//     GraphQL 200 whose errors may say RATE_LIMITED), the
//     end of the perform is, with the body given to use_body().
//   * Each answer carries its hop's elapsed time (AnswerRecord::elapsed): the
//     meter's Clock::steady_now() when the hop went out (the prereq
//     callback) to when its header block closed (the blank line), also when
//     the record itself waits for the body.
//   * finish(): a request sent but never answered gets a kNoAnswer answer; a
//     perform that failed before anything was sent (resolve, connect, TLS)
//     is one attempt with no answer, charged to the URL libcurl was trying.
// The request's own origin (scheme, host, port: the first URL's unless given)
// is decided here alone: on_own_origin() says which hops carry the request's
// credential, installation_for() which are charged to its installation —
// every request and answer is charged through it (and the refusals and waits
// admission records, by the installation the wire asks it for).
//
// Thread-safety: one HopCounter per perform, used by the performing thread.
// Errors: the callbacks never throw (libcurl is C); a callback that cannot
// allocate stops counting detail, never the transfer.
#pragma once

#include <curl/curl.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "forgemeter/meter.h"
#include "forgemeter/transport.h"
#include "meter/reading.h"
#include "transport/redirect_policy.h"

namespace forgemeter::transport_detail {

using HeaderFn = std::size_t (*)(char*, std::size_t, std::size_t, void*);
using PrereqFn = int (*)(void*, char*, char*, int, int);

// The host and API of the last hop URL parsed on one handle: a request that
// goes to the same URL again is not parsed again.
struct ParsedHost {
  std::string url, host;
  Api api = Api::rest;
};

class HopCounter;

// Lets the counting callbacks stay installed on a handle from one perform to
// the next: their data pointer is the slot, which names the counter of the
// perform at hand (nullptr between performs: the callbacks then count nothing).
struct CounterSlot {
  HopCounter* counter = nullptr;
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

  // Callbacks to call after ours (set by a CurlMeter user).
  void chain(HeaderFn header, void* header_data, PrereqFn prereq, void* prereq_data) noexcept;

  // Reuse (and update) `parsed` for the hops' host and API; it must outlive
  // the performs.
  void use_parsed(ParsedHost* parsed) noexcept { parsed_ = parsed; }
  // Where the perform writes the answer's body (read when a class needs it).
  void use_body(const std::string* body) noexcept { body_ = body; }
  // Installs the callbacks on `h` for the next perform.
  void attach(CURL* h) noexcept;
  // The same through `slot` (which must outlive the handle's performs): the
  // callbacks are set only when `installed` is false (a fresh or reset
  // handle), which it then becomes; `slot` names this counter.
  void attach(CURL* h, CounterSlot& slot, bool& installed) noexcept;
  // Closes the books on one perform that returned `rc`.
  void finish(CURL* h, CURLcode rc) noexcept;

  // Whether a hop to `url` goes to the request's own origin: the only hops
  // that carry its credential and are charged to its installation. Known
  // once the origin is (given, or the first hop's).
  bool on_own_origin(std::string_view url) const {
    // The request's own URL needs no parsing, and the very string the
    // counter views (the Transport asks with it) no comparison either.
    const bool viewed = url.data() == origin_url_.data() && url.size() == origin_url_.size();
    return viewed || url == origin_url_ || origin_key(url) == origin_;
  }
  // The installation a hop to `url` is charged to: the request's own on its
  // own origin, none elsewhere.
  std::uint64_t installation_for(std::string_view url) const {
    return installation_ != 0 && on_own_origin(url) ? installation_ : 0;
  }

  Lane lane() const noexcept { return lane_; }
  // The request's own origin (origin_key), "" until known.
  std::string_view origin() const noexcept { return origin_; }
  const std::vector<Hop>& hops() const noexcept { return hops_; }
  std::vector<Hop>& hops() noexcept { return hops_; }
  // The last hop's status; kNoAnswer when none was counted.
  int last_status() const noexcept { return hops_.empty() ? kNoAnswer : hops_.back().status; }
  // The latest (non-1xx) answer block, and its rate-limit values (views into
  // it: valid until the next block or take_headers).
  const Headers& headers() const noexcept { return headers_; }
  Headers take_headers() noexcept;
  // The rate-limit fields of the latest answer block (views into it).
  RateLimitHeaders rate_headers() const noexcept;
  // Whether the latest perform put anything on the wire, and how many
  // requests (more than one: libcurl resent on a fresh connection).
  bool sent_in_last_perform() const noexcept { return sent_this_perform_; }
  int requests_in_last_perform() const noexcept { return requests_this_perform_; }

 private:
  static int on_prereq(void* p, char* remote_ip, char* local_ip, int remote_port, int local_port);
  static std::size_t on_header(char* data, std::size_t size, std::size_t n, void* p);
  static int on_prereq_slot(void* slot, char* remote_ip, char* local_ip, int remote_port, int local_port);
  static std::size_t on_header_slot(char* data, std::size_t size, std::size_t n, void* slot);
  void begin_perform(CURL* h) noexcept;
  std::size_t receive(char* data, std::size_t size, std::size_t n);
  void begin_hop(const char* url);
  void fill_hop(Hop& hop, std::string_view url);
  void answer(int status) noexcept;
  void header_line(std::string_view raw);
  [[gnu::noinline]] void block_line(std::string_view raw);  // off the per-field path
  bool waits_for_body() const noexcept;  // whether the block just closed is counted at the body's end
  std::string_view value_of(std::size_t field) const noexcept {
    return field == Headers::npos ? std::string_view() : headers_[field].value;
  }
  void forget_rate_fields() noexcept { rate_at_.fill(Headers::npos); }

  Meter& meter_;
  Lane lane_;
  std::uint64_t installation_;
  std::string_view origin_url_;
  std::string_view origin_;
  std::string own_origin_url_, own_origin_;  // the first hop's, when none was given
  CURL* handle_ = nullptr;
  ParsedHost* parsed_ = nullptr;
  HeaderFn next_header_ = nullptr;
  void* next_header_data_ = nullptr;
  PrereqFn next_prereq_ = nullptr;
  void* next_prereq_data_ = nullptr;

  std::vector<Hop> hops_;
  std::uint64_t hop_installation_ = 0;  // the installation the pending hop is charged to
  bool pending_ = false;                // the last hop was sent and is not answered yet
  int deferred_status_ = kNoAnswer;     // the pending hop's status, when its class waits for the body
  const std::string* body_ = nullptr;
  bool sent_this_perform_ = false;
  int requests_this_perform_ = 0;
  SteadyTime sent_at_{};      // the pending hop went on the wire
  SteadyTime answered_at_{};  // the latest answer block closed
  int block_status_ = 0;      // status of the header block being read; 0 = none
  Headers headers_;           // parsed once, as each line arrives
  // The rate-limit fields of headers_ (the last of each name), or npos.
  std::array<std::size_t, meter::kRateFields> rate_at_ = [] {
    std::array<std::size_t, meter::kRateFields> a;
    a.fill(Headers::npos);
    return a;
  }();
};

}  // namespace forgemeter::transport_detail
