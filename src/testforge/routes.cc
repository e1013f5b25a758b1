// The forge's endpoints (listed in forge.h).
#include "testforge/routes.h"

#include <chrono>
#include <functional>
#include <string_view>
#include <thread>

#include "testforge/charging.h"
#include "testforge/forge.h"

namespace forgemeter::testforge {
namespace {

using httplib::Request;
using httplib::Response;
using Handler = httplib::Server::Handler;

void any(httplib::Server& s, const std::string& pattern, const Handler& h) {
  s.Get(pattern, h);
  s.Post(pattern, h);
  s.Put(pattern, h);
  s.Patch(pattern, h);
  s.Delete(pattern, h);
}

int int_param(const Request& req, const char* name, int fallback) {
  if (!req.has_param(name)) return fallback;
  try {
    return std::stoi(req.get_param_value(name));
  } catch (const std::exception&) {
    return fallback;
  }
}

void echo(const Request& req, Response& res) {
  res.set_content(R"({"method":")" + req.method + R"(","body_bytes":)" + std::to_string(req.body.size()) + "}",
                  "application/json");
}

std::string_view next_host(std::string_view host) {
  for (std::size_t i = 0; i < kHosts.size(); ++i)
    if (kHosts[i] == host) return kHosts[(i + 1) % kHosts.size()];
  return kHosts[0];
}

void redirect_to(Response& res, const std::string& location, int status) {
  res.status = status;
  res.set_header("Location", location);
  res.set_content("redirecting\n", "text/plain");
}

// Headers, then 100 of the announced 1000 body bytes, then the connection closes.
void drop_mid_body(Response& res) {
  res.set_content_provider(1000, "application/json", [](std::size_t offset, std::size_t, httplib::DataSink& sink) {
    if (offset != 0) return false;
    static const std::string part(100, 'x');
    sink.write(part.data(), part.size());
    return true;
  });
}

// Rate-limit headers no forge should send, in both spellings (GitHub's X-
// prefixed ones and GitLab's), the resource name included: a meter must
// neither break nor believe them.
void hostile(const Request& req, Response& res) {
  const std::string kind = req.get_param_value("kind");
  std::string value;
  if (kind == "huge")
    value = std::string(4000, '9');
  else if (kind == "negative")
    value = "-5";
  else if (kind == "control")
    value = std::string("12\x01\x1b[31m\x7f", 9) + "\xff";
  else if (kind == "syntax")
    value = R"(core x=1 "q\" (y), 100%)";
  else
    value = "lots";
  for (const char* name : {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Used", "X-RateLimit-Reset",
                           "X-RateLimit-Resource", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Observed",
                           "RateLimit-Reset", "RateLimit-ResetTime", "Retry-After"}) {
    res.headers.erase(name);
    res.set_header(name, value);
  }
  echo(req, res);
}

// An ETag no forge should send. Emplaced past set_header(), which drops a
// value with CR or LF, so that the wire carries it as written.
void hostile_etag(const Request& req, Response& res) {
  const std::string kind = req.get_param_value("kind");
  std::string value = "\"ok\"";
  if (kind == "crlf")
    value = "\"a\"\r\nX-Injected: yes";
  else if (kind == "cr")
    value = "\"a\rb\"";
  else if (kind == "control")
    value = "\"a\x1b[31mb\x7f\"";
  else if (kind == "huge")
    value = "\"" + std::string(1 << 20, 'a') + "\"";
  else if (kind == "unquoted")
    value = "abc def";
  res.headers.emplace("ETag", value);
  echo(req, res);
}

// Waits until `key` is released (true); false, with a 500 in `res`, after
// ?max_ms (default 30 s) of real time, so a test that never releases cannot
// hold a server thread for good.
bool released(Holds& holds, const std::string& key, const Request& req, Response& res) {
  if (holds.hold(key, std::chrono::milliseconds(int_param(req, "max_ms", 30'000)))) return true;
  res.status = 500;
  res.set_content("held too long: never released\n", "text/plain");
  return false;
}

}  // namespace

int FlakyCounters::bump(const std::string& key) {
  std::lock_guard lock(mu_);
  return ++seen_[key];
}

namespace {

// The forge's API as GitHub has it: repositories, GraphQL, searches.
void install_api(httplib::Server& s, const Listener& where, Holds& holds, const Resources& resources) {
  // A conditional read that matches was answered 304 before routing (accounting.cc).
  s.Get(R"(/repos/.*)", [&resources, &holds, where](const Request& req, Response& res) {
    if (!req.has_param("hold") || released(holds, req.get_param_value("hold"), req, res))
      answer_resource(req, res, represent(resources, req), resources, where);
  });
  s.Put(R"(/repos/.*)", echo);
  s.Patch(R"(/repos/.*)", echo);
  s.Delete(R"(/repos/.*)", echo);
  s.Post(R"(/(api/)?graphql)",
         [](const Request&, Response& res) { res.set_content(R"({"data":{}})", "application/json"); });
  // GitHub's searches (the accounting step charges search or code_search).
  s.Get(R"(/search/.*)",
        [](const Request&, Response& res) { res.set_content(R"({"total_count":0,"items":[]})", "application/json"); });
}

// /echo, any status, and redirects: one, a chain across hosts, a loop.
void install_answers(httplib::Server& s, const Listener& where) {
  any(s, "/echo", echo);
  any(s, R"(/status/(\d+))", [](const Request& req, Response& res) {
    res.status = std::stoi(req.matches[1]);
    if (req.has_param("retry_after")) res.set_header("Retry-After", req.get_param_value("retry_after"));
    res.set_content("status " + std::string(req.matches[1]) + "\n", "text/plain");
  });
  any(s, "/redirect", [](const Request& req, Response& res) {
    redirect_to(res, req.get_param_value("to"), int_param(req, "status", 302));
  });
  any(s, R"(/chain/(\d+))", [where](const Request& req, Response& res) {
    const int n = std::stoi(req.matches[1]);
    if (n == 0) return echo(req, res);
    const int status = int_param(req, "status", 302);
    redirect_to(res,
                where.scheme + "://" + std::string(next_host(host_name(req.get_header_value("Host")))) + ":" +
                    std::to_string(where.port) + "/chain/" + std::to_string(n - 1) +
                    "?status=" + std::to_string(status),
                status);
  });
  any(s, "/loop", [](const Request&, Response& res) { redirect_to(res, "/loop", 302); });
}

// Faults on demand: failing first, dropped bodies, secondary limits, slow,
// hostile and held answers.
void install_faults(httplib::Server& s, FlakyCounters& flaky, Holds& holds) {
  any(s, R"(/flaky/([^/]+))", [&flaky](const Request& req, Response& res) {
    if (flaky.bump(req.matches[1]) <= int_param(req, "fail", 1)) {
      res.status = int_param(req, "status", 503);
      res.set_content("try again\n", "text/plain");
      return;
    }
    echo(req, res);
  });
  any(s, "/drop", [&flaky](const Request& req, Response& res) {
    if (req.has_param("key") && flaky.bump(req.get_param_value("key")) > int_param(req, "fail", 1))
      return echo(req, res);
    drop_mid_body(res);
  });
  any(s, R"(/secondary/([^/]+))", [&flaky](const Request& req, Response& res) {
    if (flaky.bump(req.matches[1]) <= int_param(req, "fail", 1)) {
      res.status = 403;
      res.set_header("Retry-After", std::to_string(int_param(req, "retry_after", 1)));
      res.set_content(std::string(kSecondaryBody), "application/json");
      return;
    }
    echo(req, res);
  });
  any(s, R"(/slow/(\d+))", [](const Request& req, Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(req.matches[1])));
    if (req.has_param("to")) return redirect_to(res, req.get_param_value("to"), 302);
    echo(req, res);
  });
  any(s, "/hostile", hostile);
  any(s, "/hostile/etag", hostile_etag);
  any(s, R"(/hold/([^/]+))", [&holds](const Request& req, Response& res) {
    if (released(holds, req.matches[1], req, res)) echo(req, res);
  });
}

}  // namespace

void install_routes(httplib::Server& s, const Listener& where, FlakyCounters& flaky, Holds& holds,
                    const Resources& resources) {
  install_api(s, where, holds, resources);
  install_answers(s, where);
  install_faults(s, flaky, holds);
}

}  // namespace forgemeter::testforge
