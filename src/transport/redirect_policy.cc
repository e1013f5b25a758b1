#include "transport/redirect_policy.h"

#include <curl/curl.h>

#include <new>

#include "core/ascii.h"

namespace forgemeter::transport_detail {
namespace {

std::string part(CURLU* u, CURLUPart which, unsigned flags) {
  char* s = nullptr;
  if (curl_url_get(u, which, &s, flags) != CURLUE_OK || !s) return {};
  std::string out = core_detail::ascii_lowercase(s);
  curl_free(s);
  return out;
}

}  // namespace

std::optional<Origin> origin_of(std::string_view url) {
  CURLU* u = curl_url();
  if (!u) return std::nullopt;
  std::optional<Origin> out;
  if (curl_url_set(u, CURLUPART_URL, std::string(url).c_str(), CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK) {
    Origin o{part(u, CURLUPART_SCHEME, 0), part(u, CURLUPART_HOST, 0), part(u, CURLUPART_PORT, CURLU_DEFAULT_PORT)};
    if (!o.scheme.empty()) out = std::move(o);
  }
  curl_url_cleanup(u);
  return out;
}

std::string origin_key(std::string_view url) {
  auto o = origin_of(url);
  return o ? o->key() : std::string();
}

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

bool allowed_scheme(std::string_view scheme) noexcept { return scheme == "http" || scheme == "https"; }

bool is_redirect(int status) noexcept {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

std::string next_method(int status, const std::string& method) {
  if (status == 303 && method != "HEAD") return "GET";
  if ((status == 301 || status == 302) && method == "POST") return "GET";
  return method;
}

bool is_credential_header(std::string_view name) noexcept {
  // GitLab's API tokens travel in headers of their own (PRIVATE-TOKEN, JOB-TOKEN).
  for (std::string_view c : {"Authorization", "Cookie", "Proxy-Authorization", "PRIVATE-TOKEN", "JOB-TOKEN"})
    if (core_detail::iequals(name, c)) return true;
  return false;
}

}  // namespace forgemeter::transport_detail
