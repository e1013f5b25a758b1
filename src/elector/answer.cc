// The elector's answers as bytes (answer.h).
#include "elector/answer.h"

#include <date/date.h>
#include <nlohmann/json.hpp>

namespace forgemeter::elector {
namespace {

std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', /*ensure_ascii=*/true, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

std::string rfc3339(UtcMillis t) { return date::format("%FT%TZ", t); }

std::string answer_json(const LeaseAnswer& a) {
  nlohmann::ordered_json j;
  if (!a.event.empty()) j["event"] = a.event;
  j["name"] = a.name;
  j["holder"] = a.holder;
  j["term"] = a.term;
  j["expiry"] = a.holder.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(rfc3339(a.expiry));
  j["leader"] = a.leader;
  j["valid_for_ms"] = a.valid_for_ms;
  j["id"] = a.id;
  return dump(j);
}

std::string event_frame(const LeaseAnswer& a) { return "id: " + a.id + "\ndata: " + answer_json(a) + "\n\n"; }

std::string compat_json(const std::string& holder, UtcMillis last_update) {
  nlohmann::ordered_json j;
  j["name"] = holder;
  j["last_update"] = date::format("%FT%TZ", std::chrono::floor<std::chrono::seconds>(last_update));
  return dump(j);
}

std::string compat_frame(const std::string& holder, UtcMillis last_update) {
  return "data: " + compat_json(holder, last_update) + "\n\n";
}

}  // namespace forgemeter::elector
