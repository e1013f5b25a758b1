// The elector's endpoints (routes.h).
#include "elector/routes.h"

#include <nlohmann/json.hpp>

#include "core/duration_text.h"
#include "serve/metrics_route.h"

namespace forgemeter::elector {
namespace {

const std::vector<serve::Field> kJson{{"Content-Type", "application/json"}, {"Cache-Control", "no-store"}};

void refuse(serve::Reply& reply, int status, const std::string& why, std::vector<serve::Field> extra = {}) {
  nlohmann::json j;
  j["error"] = why;
  std::vector<serve::Field> headers = kJson;
  headers.insert(headers.end(), extra.begin(), extra.end());
  reply.answer(status, std::move(headers), j.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

// The value of query parameter `key` (decoded), or nullopt.
std::optional<std::string> param(std::string_view query, std::string_view key) {
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view part = query.substr(0, amp);
    const std::size_t eq = part.find('=');
    if (decoded(part.substr(0, eq)) == key) return eq == std::string_view::npos ? "" : decoded(part.substr(eq + 1));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

// GET /leases/NAME, now or (?wait=) at the next change after ?after=.
void lease_answer(Elector& e, LeaseView& view, const serve::ServeRequest& req, serve::Reply reply, SteadyTime arrived) {
  const auto wait_text = param(req.query, "wait");
  if (wait_text) {
    const auto wait = core_detail::parse_duration(*wait_text);
    if (!wait || *wait > kMaxWait) return refuse(reply, 400, "wait: give a duration up to 5m, e.g. wait=30s");
    const auto after = param(req.query, "after");
    if (!after || *after == view.current_id()) return e.await_change(view, std::move(reply), arrived, arrived + *wait);
  }
  send_answer(reply, view.answer(arrived));
}

// "/leases/NAME" or "/leases/NAME/<tail>": NAME and tail, or nullopt.
std::optional<std::pair<std::string, std::string>> lease_path(std::string_view path) {
  constexpr std::string_view prefix = "/leases/";
  if (!path.starts_with(prefix)) return std::nullopt;
  path.remove_prefix(prefix.size());
  const std::size_t slash = path.find('/');
  std::string name = decoded(path.substr(0, slash));
  std::string tail = slash == std::string_view::npos ? "" : std::string(path.substr(slash + 1));
  if (name.empty()) return std::nullopt;
  return std::pair{std::move(name), std::move(tail)};
}

}  // namespace

serve::Handler public_routes(Elector& e) {
  return [&e](const serve::ServeRequest& req, serve::Reply reply) {
    const SteadyTime arrived = e.clock().steady_now();  // before anything else: the promise counts from it
    const bool get = req.method == "GET" || req.method == "HEAD";
    LeaseView* only = e.names().size() == 1 ? e.view(e.names().front()) : nullptr;
    if (req.path == "/" || req.path == "/sse") {
      if (only == nullptr) return refuse(reply, 404, "/ and /sse answer for one lease; this elector serves several");
      if (!get) return refuse(reply, 405, "only GET here", {{"Allow", "GET, HEAD"}});
      if (req.path == "/sse") return only->watch(std::move(reply), /*compat=*/true);
      return void(reply.answer(200, kJson, only->compat()));
    }
    const auto at = lease_path(req.path);
    LeaseView* view = at ? e.view(at->first) : nullptr;
    // No resign here, not even its name: it is the admin listener's.
    if (view == nullptr || (!at->second.empty() && at->second != "events"))
      return refuse(reply, 404, "no such lease here: GET /leases/NAME or /leases/NAME/events");
    if (!get) return refuse(reply, 405, "only GET here", {{"Allow", "GET, HEAD"}});
    if (at->second == "events") return view->watch(std::move(reply), /*compat=*/false);
    lease_answer(e, *view, req, std::move(reply), arrived);
  };
}

serve::Handler admin_routes(Elector& e, std::string token) {
  serve::Handler metrics = serve::metrics_route([&e] { return e.prometheus(); });
  return [&e, token = std::move(token), metrics](const serve::ServeRequest& req, serve::Reply reply) {
    if (req.path == "/metrics") return metrics(req, std::move(reply));  // for a scraper: as the proxy's, no token
    const auto auth = req.header("Authorization");
    constexpr std::string_view bearer = "Bearer ";
    if (!auth || auth->size() < bearer.size() || auth->substr(0, bearer.size()) != bearer)
      return refuse(reply, 401, "give Authorization: Bearer TOKEN", {{"WWW-Authenticate", "Bearer"}});
    if (!same_secret(auth->substr(bearer.size()), token)) return refuse(reply, 403, "the token does not match");
    const auto at = lease_path(req.path);
    if (!at || at->second != "resign" || e.view(at->first) == nullptr)
      return refuse(reply, 404, "no such endpoint: POST /leases/NAME/resign");
    if (req.method != "POST") return refuse(reply, 405, "resign is a POST", {{"Allow", "POST"}});
    const auto term = e.resign(at->first);
    if (!term) return refuse(reply, 409, "this replica does not lead " + at->first + ": nothing to resign");
    nlohmann::ordered_json j;
    j["name"] = at->first;
    j["term"] = *term;
    j["resigning"] = true;
    reply.answer(202, kJson, j.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
  };
}

bool same_secret(std::string_view a, std::string_view b) noexcept {
  unsigned diff = a.size() == b.size() ? 0U : 1U;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = static_cast<unsigned char>(i < a.size() ? a[i] : 0);
    const auto y = static_cast<unsigned char>(i < b.size() ? b[i] : 0);
    diff |= static_cast<unsigned>(x ^ y);
  }
  return diff == 0;
}

std::optional<std::string> token_from_file_text(std::string_view text) {
  std::string_view line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
  if (line.empty()) return std::nullopt;
  return std::string(line);
}

}  // namespace forgemeter::elector
