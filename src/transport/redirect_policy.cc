#include "transport/redirect_policy.h"

#include <curl/curl.h>

#include <new>

namespace forgemeter::transport_detail {

std::string without_userinfo(const std::string& url) {
  CURLU* u = curl_url();
  if (!u) throw std::bad_alloc();
  std::string out = url;
  char* full = nullptr;
  const auto present = [u](CURLUPart which) {
    char* s = nullptr;
    const bool got = curl_url_get(u, which, &s, 0) == CURLUE_OK;
    curl_free(s);
    return got;
  };
  if (curl_url_set(u, CURLUPART_URL, url.c_str(), CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK &&
      (present(CURLUPART_USER) || present(CURLUPART_PASSWORD) || present(CURLUPART_OPTIONS))) {
    const bool cleared = curl_url_set(u, CURLUPART_USER, nullptr, 0) == CURLUE_OK &&
                         curl_url_set(u, CURLUPART_PASSWORD, nullptr, 0) == CURLUE_OK &&
                         curl_url_set(u, CURLUPART_OPTIONS, nullptr, 0) == CURLUE_OK &&
                         curl_url_get(u, CURLUPART_URL, &full, 0) == CURLUE_OK && full;
    out = cleared ? std::string(full) : std::string();  // fail closed: "" is no URL, the redirect is refused
  }
  curl_free(full);
  curl_url_cleanup(u);
  return out;
}

bool is_redirect(int status) noexcept {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

std::string next_method(int status, const std::string& method) {
  if (status == 303 && method != "HEAD") return "GET";
  if ((status == 301 || status == 302) && method == "POST") return "GET";
  return method;
}

}  // namespace forgemeter::transport_detail
