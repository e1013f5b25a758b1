#include "transport/hop.h"

namespace forgemeter::transport_detail {

void prepare_handle(HandlePool::Handle& handle, const ConnectionSettings& settings, const HopLine& hop,
                    curl_slist* headers, const Request& req) {
  CURL* h = handle.get();
  HandleState& st = handle.state();
  const bool kept = st.reusable && st.with_body == hop.with_body && st.fed == hop.fed && st.method == hop.method;
  if (!kept) {
    handle.reset();
    ConnectionSettings first = settings;
    first.load_resolve = st.fresh;
    apply_connection(h, first);
    st.fresh = false;
    st.method = hop.method;
    st.with_body = hop.with_body;
    st.fed = hop.fed;
    st.callbacks_set = false;
    st.url_set.clear();
    st.headers_set = nullptr;
    st.progress_on = false;
  } else if (settings.connect_timeout != st.connect_timeout_set || settings.timeout != st.timeout_set) {
    apply_timeouts(h, settings);
  }
  st.connect_timeout_set = settings.connect_timeout;
  st.timeout_set = settings.timeout;
  st.reusable = false;  // until this perform proves clean
  if (!kept || st.url_set != *hop.url) {
    st.url_set.clear();  // until set (the copy may throw)
    apply_url(h, *hop.url);
    st.url_set = *hop.url;
  }
  if (!kept || st.headers_set != headers) {
    apply_header_list(h, headers);
    st.headers_set = headers;
  }
  // The method's options of a kept handle are those of the same method; a
  // body is set again (it is this request's).
  if (hop.fed)
    apply_fed_method(h, hop.method, req.body_length);
  else if (!kept || hop.with_body)
    apply_method(h, hop.method, req.body, hop.with_body);
}

namespace {

// libcurl's progress callback while a stop token may fire: non-zero aborts
// the transfer (CURLE_ABORTED_BY_CALLBACK). Called at least once a second.
int stop_progress(void* stop, curl_off_t, curl_off_t, curl_off_t, curl_off_t) noexcept {
  return static_cast<const std::stop_token*>(stop)->stop_requested() ? 1 : 0;
}

// The progress callback on while `stop` may fire, off otherwise (and left
// alone when already so: a request without a token costs nothing).
void watch_stop(CURL* h, HandleState& st, const std::stop_token& stop) noexcept {
  if (stop.stop_possible()) {
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, &stop_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, &stop);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    st.progress_on = true;
  } else if (st.progress_on) {
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 1L);
    st.progress_on = false;
  }
}

}  // namespace

CURLcode perform_prepared(HandlePool::Handle& handle, HopCounter& counter, const std::stop_token& stop) noexcept {
  CURL* h = handle.get();
  HandleState& st = handle.state();
  st.error[0] = '\0';
  watch_stop(h, st, stop);
  counter.attach(h, st.slot, st.callbacks_set);
  const CURLcode rc = curl_easy_perform(h);
  st.slot.counter = nullptr;  // the counter ends with this call
  counter.finish(h, rc);
  // Kept without a reset next time only if libcurl resent nothing (its
  // per-handle resend counter is still 0).
  st.reusable = rc == CURLE_OK && counter.requests_in_last_perform() == 1;
  return rc;
}

}  // namespace forgemeter::transport_detail
