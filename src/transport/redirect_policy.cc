#include "transport/redirect_policy.h"

#include <curl/curl.h>

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
