#include "transport/hop_counter.h"

#include <cstring>

#include "meter/reading.h"
#include "transport/errors.h"
#include "transport/redirect_policy.h"

namespace forgemeter::transport_detail {
namespace {

// "HTTP/1.1 200 OK" / "HTTP/2 304" -> the status; 0 when unreadable.
int status_of(std::string_view line) noexcept {
  auto sp = line.find(' ');
  if (sp == std::string_view::npos || line.size() < sp + 4) return 0;
  int v = 0;
  for (std::size_t i = sp + 1; i < sp + 4; ++i) {
    if (line[i] < '0' || line[i] > '9') return 0;
    v = v * 10 + (line[i] - '0');
  }
  return v;
}

}  // namespace

HopCounter::HopCounter(Meter& meter, Lane lane, std::uint64_t installation, std::string_view origin_url,
                       std::string_view origin)
    : meter_(meter), lane_(lane), installation_(installation), origin_url_(origin_url), origin_(origin) {}

void HopCounter::chain(HeaderFn header, void* header_data, PrereqFn prereq, void* prereq_data) noexcept {
  next_header_ = header;
  next_header_data_ = header_data;
  next_prereq_ = prereq;
  next_prereq_data_ = prereq_data;
}

// Each line is parsed once, into headers_; the rate-limit fields are noted by
// their index there (no copy). A field line, the common one, takes the short
// path; a status line or blank line (once per answer) the other.
inline void HopCounter::header_line(std::string_view raw) {
  const bool field = block_status_ >= 200 && !raw.empty() && raw.front() != '\r' && raw.front() != '\n' &&
                     !(raw.size() >= 5 && std::memcmp(raw.data(), "HTTP/", 5) == 0);
  if (!field) return block_line(raw);
  const std::size_t i = headers_.add_field(raw);
  if (i == Headers::npos) return;
  if (const auto f = meter::rate_field(headers_.name(i)); f != meter::RateField::none) {
    std::size_t& at = rate_at_[static_cast<std::size_t>(f)];
    if (at == Headers::npos || meter::replaces(f, value_of(at), value_of(i))) at = i;
  }
}

RateLimitHeaders HopCounter::rate_headers() const noexcept {
  using F = meter::RateField;
  auto at = [this](F f) { return value_of(rate_at_[static_cast<std::size_t>(f)]); };
  RateLimitHeaders h;
  h.limit = at(F::limit);
  h.remaining = at(F::remaining);
  h.reset = at(F::reset);
  h.retry_after = at(F::retry_after);
  h.resource = at(F::resource);
  h.plain_limit = at(F::plain_limit);
  h.plain_remaining = at(F::plain_remaining);
  h.plain_reset = at(F::plain_reset);
  h.plain_name = at(F::plain_name);
  h.plain_reset_time = at(F::plain_reset_time);
  return h;
}

// One header line from libcurl, counted (on_header then passes it on to a chained callback).
inline std::size_t HopCounter::receive(char* data, std::size_t size, std::size_t n) {
  const std::size_t len = size * n;
  try {
    header_line(std::string_view(data, len));
  } catch (...) {
    // out of memory while keeping headers: the count is already safe
  }
  return len;
}

void HopCounter::begin_perform(CURL* h) noexcept {
  handle_ = h;
  sent_this_perform_ = false;
  requests_this_perform_ = 0;
}

void HopCounter::attach(CURL* h) noexcept {
  begin_perform(h);
  curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, &HopCounter::on_prereq);
  curl_easy_setopt(h, CURLOPT_PREREQDATA, this);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &HopCounter::on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, this);
}

void HopCounter::attach(CURL* h, CounterSlot& slot, bool& installed) noexcept {
  begin_perform(h);
  slot.counter = this;
  if (installed) return;
  curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, &HopCounter::on_prereq_slot);
  curl_easy_setopt(h, CURLOPT_PREREQDATA, &slot);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &HopCounter::on_header_slot);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &slot);
  installed = true;
}

int HopCounter::on_prereq_slot(void* slot, char* remote_ip, char* local_ip, int remote_port, int local_port) {
  HopCounter* self = static_cast<CounterSlot*>(slot)->counter;
  return self ? on_prereq(self, remote_ip, local_ip, remote_port, local_port) : CURL_PREREQFUNC_OK;
}

std::size_t HopCounter::on_header_slot(char* data, std::size_t size, std::size_t n, void* slot) {
  HopCounter* self = static_cast<CounterSlot*>(slot)->counter;
  if (!self) return size * n;
  if (self->next_header_) return on_header(data, size, n, self);
  return self->receive(data, size, n);  // nothing chained (the Transport's own handles)
}

int HopCounter::on_prereq(void* p, char* remote_ip, char* local_ip, int remote_port, int local_port) {
  auto* self = static_cast<HopCounter*>(p);
  if (self->next_prereq_) {
    const int verdict = self->next_prereq_(self->next_prereq_data_, remote_ip, local_ip, remote_port, local_port);
    if (verdict != CURL_PREREQFUNC_OK) return verdict;  // the user stopped it: nothing is sent
  }
  char* url = nullptr;
  curl_easy_getinfo(self->handle_, CURLINFO_EFFECTIVE_URL, &url);
  self->begin_hop(url);
  return CURL_PREREQFUNC_OK;
}

void HopCounter::begin_hop(const char* url) {
  ++requests_this_perform_;  // even if this one cannot be counted in detail
  // libcurl resends on a fresh connection: the last one got nothing (or an
  // answer whose body did not come before this).
  if (pending_) answer(deferred_status_);
  try {
    Hop& hop = hops_.emplace_back();  // filled in place; dropped again if that fails
    try {
      fill_hop(hop, url ? url : "");
    } catch (...) {
      hops_.pop_back();
      throw;
    }
  } catch (...) {
    return;  // out of memory: this hop goes uncounted rather than crash a C callback
  }
  const Hop& hop = hops_.back();
  const Clock& clock = meter_.clock();
  meter_.record_request(RequestKey{hop.host, hop.api, hop_installation_, lane_}, clock.now());
  sent_at_ = clock.steady_now();
  pending_ = true;
  sent_this_perform_ = true;
  block_status_ = 0;
}

// The hop's URL, host and API, and the installation it is charged to.
void HopCounter::fill_hop(Hop& hop, std::string_view url) {
  hop.url.assign(url);
  if (parsed_ && parsed_->url == hop.url) {
    hop.host = parsed_->host;
    hop.api = parsed_->api;
  } else {
    hop.host = host_of(hop.url);
    hop.api = api_of_url(hop.url);
    if (parsed_) *parsed_ = ParsedHost{hop.url, hop.host, hop.api};
  }
  if (origin_.empty()) {  // the first hop defines the origin
    own_origin_url_ = hop.url;
    own_origin_ = origin_key(hop.url);
    origin_url_ = own_origin_url_;
    origin_ = own_origin_;
  }
  hop_installation_ = installation_for(hop.url);
}

void HopCounter::answer(int status) noexcept {
  if (!pending_ || hops_.empty()) return;
  Hop& hop = hops_.back();
  hop.status = status;
  AnswerRecord a;
  a.key = RequestKey{hop.host, hop.api, hop_installation_, lane_};
  a.seen = meter_.clock().now();
  a.status = status;
  if (status != kNoAnswer) a.headers = rate_headers();
  if (status != kNoAnswer && status == deferred_status_ && body_) a.body = *body_;
  if (status != kNoAnswer && answered_at_ >= sent_at_) a.elapsed = answered_at_ - sent_at_;
  meter_.record_answer(a);
  pending_ = false;
  deferred_status_ = kNoAnswer;
}

std::size_t HopCounter::on_header(char* data, std::size_t size, std::size_t n, void* p) {
  auto* self = static_cast<HopCounter*>(p);
  const std::size_t len = self->receive(data, size, n);
  if (self->next_header_) return self->next_header_(data, size, n, self->next_header_data_);
  return len;
}

Headers HopCounter::take_headers() noexcept {
  forget_rate_fields();
  return std::move(headers_);
}

void HopCounter::block_line(std::string_view raw) {
  if (raw.size() >= 5 && raw.substr(0, 5) == "HTTP/") {
    block_status_ = status_of(core_detail::trimmed(raw, true));
    if (block_status_ >= 200) {  // a new answer: an earlier hop's block is dropped
      headers_.clear();
      forget_rate_fields();
      headers_.reserve(768, 16);  // one 1 KiB block: most answers fit (GitHub's grow once)
      headers_.add_line(raw);
    }
    return;
  }
  const bool blank = raw.empty() || raw.front() == '\r' || raw.front() == '\n';
  if (block_status_ < 200) {  // a 1xx block, or nothing we are reading
    if (blank) block_status_ = 0;
    return;
  }
  // The blank line that ends this answer's headers: counted now (even if the
  // line cannot be kept), or at the end of its body when its class needs it;
  // either way the hop was answered now.
  answered_at_ = meter_.clock().steady_now();
  if (waits_for_body())
    deferred_status_ = block_status_;
  else
    answer(block_status_);
  block_status_ = 0;
  headers_.add_line(raw);
}

// Only a 403, or a GraphQL 200, can: a REST answer pays two comparisons.
bool HopCounter::waits_for_body() const noexcept {
  const Api api = hops_.empty() ? Api::rest : hops_.back().api;
  return (block_status_ == 403 || (block_status_ == 200 && api == Api::graphql)) && body_ &&
         meter::class_needs_body(block_status_, rate_headers(), api);
}

void HopCounter::finish(CURL* h, CURLcode rc) noexcept {
  if (pending_) {
    answer(deferred_status_);
    return;
  }
  if (!fails_before_sending(rc)) return;
  char* url = nullptr;
  curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &url);
  // A perform that sent nothing failed on its first attempt; one that did send
  // (libcurl following redirects) failed on a new hop only when it had moved on.
  if (sent_this_perform_ && !hops_.empty() && url && hops_.back().url == url) return;
  handle_ = h;
  begin_hop(url);
  answer(kNoAnswer);
}

}  // namespace forgemeter::transport_detail
