// The forge's pre-routing step: ground truth and budgets, for every request.
#include <cctype>
#include <charconv>
#include <string_view>

#include "forgemeter/url.h"
#include "testforge/forge.h"
#include "testforge/routes.h"

namespace forgemeter::testforge {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// `Bearer inst-<digits>` -> the id; anything else -> 0.
std::uint64_t installation_of(const std::string& authorization) {
  constexpr std::string_view prefix = "Bearer inst-";
  if (authorization.size() <= prefix.size() || authorization.compare(0, prefix.size(), prefix) != 0)
    return 0;
  std::uint64_t id = 0;
  const char* first = authorization.data() + prefix.size();
  const char* last = authorization.data() + authorization.size();
  auto [p, ec] = std::from_chars(first, last, id);
  return (ec == std::errc{} && p == last) ? id : 0;
}

bool is_conditional_hit(const httplib::Request& req) {
  return req.method == "GET" && req.path.rfind("/repos/", 0) == 0 &&
         req.has_header("If-None-Match") && req.get_header_value("If-None-Match") == etag_of(req.path);
}

}  // namespace

void install_accounting(httplib::Server& server, const Listener& where, GroundTruth& truth,
                        Budgets& budgets) {
  server.set_pre_routing_handler([&truth, &budgets, where](const httplib::Request& req,
                                                           httplib::Response& res) {
    ReceivedRequest r;
    r.host = lower(req.get_header_value("Host"));
    r.method = req.method;
    r.target = req.target;
    r.lane = req.get_header_value(std::string(kLaneHeader).c_str());
    r.installation = installation_of(req.get_header_value("Authorization"));
    r.listener_port = where.port;
    r.tls = where.scheme == "https";
    r.headers.assign(req.headers.begin(), req.headers.end());
    const std::uint64_t installation = r.installation;
    truth.record(std::move(r), req.remote_port);

    const std::string resource = api_of_path(req.path) == Api::graphql ? "graphql" : "core";
    const BudgetReading b = budgets.charge(installation, resource, is_conditional_hit(req) ? 0 : 1);
    res.set_header("X-RateLimit-Limit", std::to_string(b.limit));
    res.set_header("X-RateLimit-Remaining", std::to_string(b.remaining));
    res.set_header("X-RateLimit-Used", std::to_string(b.used));
    res.set_header("X-RateLimit-Reset", std::to_string(b.reset_epoch));
    res.set_header("X-RateLimit-Resource", resource);
    if (!b.exhausted) return httplib::Server::HandlerResponse::Unhandled;
    res.status = 403;
    res.set_content(R"({"message":"API rate limit exceeded for installation ID )" +
                        std::to_string(installation) + R"(."})",
                    "application/json");
    return httplib::Server::HandlerResponse::Handled;
  });
}

}  // namespace forgemeter::testforge
