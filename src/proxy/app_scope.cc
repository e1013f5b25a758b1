// canonical_scope (app_scope.h): a bounded SAX walk over the body.
#include "proxy/app_scope.h"

#include <cstdint>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

namespace forgemeter::proxy {
namespace {

using nlohmann::json;

// Reads the one shape GitHub's access_tokens body has, and refuses (returns
// false, which ends the parse at once) at the first thing outside it.
class ScopeReader : public nlohmann::json_sax<json> {
 public:
  std::set<std::string> repositories;
  std::set<std::uint64_t> repository_ids;
  std::map<std::string, std::string> permissions;
  std::set<std::string> given;  // the top-level keys seen
  bool top_seen = false;

  bool null() override { return false; }
  bool boolean(bool) override { return false; }
  bool number_integer(number_integer_t) override { return false; }
  bool number_float(number_float_t, const string_t&) override { return false; }
  bool binary(binary_t&) override { return false; }
  bool number_unsigned(number_unsigned_t n) override {
    if (at_ != In::ids || repository_ids.size() >= kMaxScopeItems) return false;
    repository_ids.insert(n);
    return true;
  }
  bool string(string_t& s) override {
    if (s.empty() || s.size() > kMaxScopeString) return false;
    if (at_ == In::names) {
      if (repositories.size() >= kMaxScopeItems) return false;
      repositories.insert(s);
      return true;
    }
    if (at_ == In::permission_value) {
      permissions[permission_] = s;
      at_ = In::permissions;
      return true;
    }
    return false;
  }
  bool start_object(std::size_t) override {
    if (at_ == In::nothing && !top_seen) return top_seen = true, at_ = In::top, true;
    if (at_ == In::value && key_ == "permissions") return at_ = In::permissions, true;
    return false;
  }
  bool end_object() override {
    if (at_ == In::permissions) return at_ = In::top, true;
    if (at_ == In::top) return at_ = In::nothing, true;
    return false;
  }
  bool start_array(std::size_t) override {
    if (at_ != In::value) return false;
    if (key_ == "repositories") return at_ = In::names, true;
    if (key_ == "repository_ids") return at_ = In::ids, true;
    return false;
  }
  bool end_array() override {
    if (at_ != In::names && at_ != In::ids) return false;
    at_ = In::top;
    return true;
  }
  bool key(string_t& k) override {
    if (at_ == In::top) {
      if (!given.insert(k).second) return false;  // a key given twice
      key_ = k;
      return at_ = In::value, true;
    }
    if (at_ == In::permissions) {
      if (k.empty() || k.size() > kMaxScopeString || permissions.contains(k) || permissions.size() >= kMaxScopeItems)
        return false;
      permission_ = k;
      return at_ = In::permission_value, true;
    }
    return false;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  enum class In { nothing, top, value, names, ids, permissions, permission_value };
  In at_ = In::nothing;
  std::string key_, permission_;
};

bool blank(std::string_view body) { return body.find_first_not_of(" \t\r\n") == std::string_view::npos; }

}  // namespace

std::optional<std::string> canonical_scope(std::string_view body) {
  if (body.size() > kMaxScopeBody) return std::nullopt;
  if (blank(body)) return "{}";
  ScopeReader reader;
  if (!json::sax_parse(body, &reader, json::input_format_t::json, /*strict=*/true) || !reader.top_seen)
    return std::nullopt;
  json out = json::object();  // a std::map underneath: keys sorted
  if (reader.given.contains("repositories")) out["repositories"] = reader.repositories;
  if (reader.given.contains("repository_ids")) out["repository_ids"] = reader.repository_ids;
  if (reader.given.contains("permissions")) out["permissions"] = reader.permissions;
  return out.dump();
}

}  // namespace forgemeter::proxy
