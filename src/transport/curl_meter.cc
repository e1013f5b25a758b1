#include "forgemeter/curl_meter.h"

#include <curl/curl.h>

#include <stdexcept>

#include "transport/hop_counter.h"

namespace forgemeter {

struct CurlMeter::Impl {
  Impl(CURL* h, Meter& meter, Lane lane, std::uint64_t installation)
      : handle(h), counter(meter, lane, installation) {}  // origin: the first hop's

  CURL* handle;
  transport_detail::HopCounter counter;
  HeaderCallback header_cb = nullptr;
  void* header_data = nullptr;
  PrereqCallback prereq_cb = nullptr;
  void* prereq_data = nullptr;
  bool finished = false;
};

CurlMeter::CurlMeter(CURL* handle, Meter& meter, MeterTag tag) {
  if (!handle) throw std::invalid_argument("CurlMeter: the CURL handle is null");
  impl_ = std::make_unique<Impl>(handle, meter, tag.lane.value_or(current_lane()), tag.installation);
  impl_->counter.attach(handle);
}

CurlMeter::~CurlMeter() {
  if (!impl_->finished) finish(CURLE_OK);
  CURL* h = impl_->handle;
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, impl_->header_cb);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, impl_->header_data);
  curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, impl_->prereq_cb);
  curl_easy_setopt(h, CURLOPT_PREREQDATA, impl_->prereq_data);
}

void CurlMeter::chain_header_callback(HeaderCallback cb, void* userdata) noexcept {
  impl_->header_cb = cb;
  impl_->header_data = userdata;
  impl_->counter.chain(cb, userdata, impl_->prereq_cb, impl_->prereq_data);
}

void CurlMeter::chain_prereq_callback(PrereqCallback cb, void* clientp) noexcept {
  impl_->prereq_cb = cb;
  impl_->prereq_data = clientp;
  impl_->counter.chain(impl_->header_cb, impl_->header_data, cb, clientp);
}

int CurlMeter::perform() noexcept {
  impl_->counter.attach(impl_->handle);
  impl_->finished = false;
  const CURLcode rc = curl_easy_perform(impl_->handle);
  finish(rc);
  return rc;
}

void CurlMeter::finish(int curl_code) noexcept {
  impl_->counter.finish(impl_->handle, static_cast<CURLcode>(curl_code));
  impl_->finished = true;
}

const std::vector<Hop>& CurlMeter::hops() const noexcept { return impl_->counter.hops(); }

}  // namespace forgemeter
