#include "transport/hop_headers.h"

#include <new>
#include <string_view>

#include "transport/redirect_policy.h"

namespace forgemeter::transport_detail {
namespace {

// One reused line buffer, appended straight to libcurl's list (no vector of
// strings on the way).
Slist build(const Request& r, bool own_origin, bool with_body, Lane lane, const std::string& lane_header) {
  Slist list;
  std::string line;
  auto add = [&](std::string_view a, std::string_view b, std::string_view c = {}) {
    line.assign(a).append(b).append(c);
    curl_slist* next = curl_slist_append(list.get(), line.c_str());
    if (!next) throw std::bad_alloc();
    (void)list.release();
    list.reset(next);
  };
  for (const auto& [name, value] : r.headers) {
    if (!own_origin && is_credential_header(name)) continue;
    if (value.empty())
      add(name, ";");
    else
      add(name, ": ", value);
  }
  if (own_origin && !r.bearer.empty()) add("Authorization: Bearer ", r.bearer);
  if (!lane_header.empty()) add(lane_header, ": ", lane.name());
  if (with_body) add("Expect:", "");
  return list;
}

}  // namespace

curl_slist* build_hop_headers(HandleState& st, const Request& r, bool own_origin, bool with_body, Lane lane,
                              const std::string& lane_header) {
  Slist fresh = build(r, own_origin, with_body, lane, lane_header);
  st.headers.reset();  // until the inputs below are all recorded (they may throw)
  st.headers_from = r.headers;
  st.bearer_from = r.bearer;
  st.lane_from = lane;
  st.same_origin_from = own_origin;
  st.with_body_from = with_body;
  st.headers = std::move(fresh);
  return st.headers.get();
}

}  // namespace forgemeter::transport_detail
