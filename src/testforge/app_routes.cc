// The forge's GitHub App endpoints (forge.h): an installation token minted
// for an App's JWT, and revoked by its holder.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <ctime>
#include <variant>

#include "appauth/app_jwt.h"
#include "testforge/github_shapes.h"
#include "testforge/routes.h"

namespace forgemeter::testforge {
namespace {

using httplib::Request;
using httplib::Response;
using nlohmann::json;

void github_error(Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(json{{"message", message},
                       {"documentation_url", "https://docs.github.com/rest"},
                       {"status", std::to_string(status)}}
                      .dump(),
                  "application/json");
}

// GitHub's 401 message for why appauth refused a JWT (its reasons' words).
std::string jwt_message(const std::string& why) {
  if (why.find("expired") != std::string::npos)
    return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the "
           "assertion expires";
  if (why.find("iat is") != std::string::npos)
    return "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued";
  if (why.find("lives") != std::string::npos) return "'Expiration time' claim ('exp') is too far in the future";
  return "A JSON web token could not be decoded";
}

// "2016-07-11T22:14:10Z": the second a token expires, rounded down (a
// client that believes it stops using the token no later than the forge).
std::string rfc3339(UtcMillis at) {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::floor<std::chrono::seconds>(at));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return out;
}

int level(const json& v) {
  if (!v.is_string()) return 0;
  const auto& s = v.get_ref<const std::string&>();
  return s == "read" ? 1 : s == "write" ? 2 : s == "admin" ? 3 : 0;
}

// The token's scope from the request's body: its permissions and, when the
// body names any repository, those repositories (as objects).
struct Scope {
  json permissions, repositories = json::array();
};
struct Refusal {
  int status = 422;
  std::string message;
};
constexpr const char* kNotAccessible =
    "There is at least one repository that does not exist or is not accessible to the parent installation.";

// The permissions asked, each granted at that level or above; or the refusal.
std::variant<json, Refusal> permissions_of(const json& body, const ForgeInstallation& inst) {
  const auto p = body.find("permissions");
  if (p == body.end()) return json(inst.permissions);
  if (!p->is_object()) return Refusal{422, "Invalid request."};
  for (const auto& [name, want] : p->items()) {
    const auto granted = inst.permissions.find(name);
    if (level(want) == 0 || granted == inst.permissions.end() || level(want) > level(json(granted->second)))
      return Refusal{422, "The permissions requested are not granted to this installation."};
  }
  return *p;
}

std::variant<Scope, Refusal> scope_of(const std::string& text, const ForgeInstallation& inst,
                                      const std::string& origin) {
  const json body = text.empty() ? json::object() : json::parse(text, nullptr, false);
  if (!body.is_object()) return Refusal{400, "Problems parsing JSON"};
  auto permissions = permissions_of(body, inst);
  if (auto* refusal = std::get_if<Refusal>(&permissions)) return std::move(*refusal);
  Scope s{std::move(std::get<json>(permissions))};
  const json names = body.value("repositories", json::array()), ids = body.value("repository_ids", json::array());
  if (!names.is_array() || !ids.is_array()) return Refusal{422, "Invalid request."};
  json reachable = json::array();  // the installation's repositories, as objects
  for (const std::string& r : inst.repositories) reachable.push_back(json::parse(repo_object(origin, inst.account, r)));
  const auto reaches = [&reachable](const char* field, const json& want) {
    return std::any_of(reachable.begin(), reachable.end(), [&](const json& repo) { return repo[field] == want; });
  };
  for (const json& name : names)
    if (!reaches("name", name)) return Refusal{422, kNotAccessible};
  for (const json& id : ids)
    if (!reaches("id", id)) return Refusal{422, kNotAccessible};
  for (json& repo : reachable) {
    const bool named = std::find(names.begin(), names.end(), repo["name"]) != names.end() ||
                       std::find(ids.begin(), ids.end(), repo["id"]) != ids.end();
    if (named) s.repositories.push_back(std::move(repo));
  }
  return s;
}

void access_tokens(const Request& req, Response& res, AppTokens& apps, const Clock& clock, const Listener& where) {
  const std::string authorization = req.get_header_value("Authorization");
  const auto jwt = appauth::bearer_of(authorization);
  if (!jwt) return github_error(res, 401, "A JSON web token could not be decoded");
  const auto verified = appauth::verify_app_jwt(*jwt, apps.keys(), clock.now());
  if (const auto* why = std::get_if<std::string>(&verified)) return github_error(res, 401, jwt_message(*why));
  const auto found = apps.installation(std::stoull(req.matches[1]));
  if (!found || found->app_id != std::get<appauth::AppJwt>(verified).app_id) return github_error(res, 404, "Not Found");
  const auto asked = scope_of(req.body, *found->installation, origin_of(req, where));
  if (const auto* refusal = std::get_if<Refusal>(&asked)) return github_error(res, refusal->status, refusal->message);
  const Scope* scope = &std::get<Scope>(asked);
  const AppTokens::Minted minted = apps.mint(found->installation->id, clock.now());
  json out = {{"token", minted.token},
              {"expires_at", rfc3339(minted.expires_at)},
              {"permissions", scope->permissions},
              {"repository_selection", scope->repositories.empty() ? "all" : "selected"}};
  if (!scope->repositories.empty()) out["repositories"] = scope->repositories;
  res.status = 201;
  res.set_content(out.dump(), "application/json");
}

}  // namespace

void install_app_routes(httplib::Server& s, const Listener& where, AppTokens& apps, const Clock& clock) {
  s.Post(R"(/app/installations/(\d{1,19})/access_tokens)",
         [&apps, &clock, where](const Request& req, Response& res) { access_tokens(req, res, apps, clock, where); });
  // The accounting step answered 401 to a token that does not authenticate.
  s.Delete("/installation/token", [&apps, &clock](const Request& req, Response& res) {
    const std::string authorization = req.get_header_value("Authorization");
    const auto token = installation_token_of(authorization);
    if (!token || !apps.revoke(*token, clock.now())) return github_error(res, 401, "Bad credentials");
    res.status = 204;
  });
}

}  // namespace forgemeter::testforge
