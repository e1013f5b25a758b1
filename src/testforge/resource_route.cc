// GET /repos/...: the forge's resources (resources.h) over HTTP.
#include "testforge/routes.h"

namespace forgemeter::testforge {
namespace {

std::optional<std::string> header(const httplib::Request& req, const char* name) {
  if (!req.has_header(name)) return std::nullopt;
  return req.get_header_value(name);
}

void set_validators(httplib::Response& res, const Representation& r) {
  res.set_header("ETag", r.etag);
  res.set_header("Last-Modified", http_date(r.last_modified));
  res.set_header("Vary", std::string(kVary));
}

}  // namespace

bool is_resource_read(const httplib::Request& req) {
  return (req.method == "GET" || req.method == "HEAD") && req.path.starts_with("/repos/");
}

Representation represent(const Resources& resources, const httplib::Request& req) {
  const std::string authorization = req.get_header_value("Authorization");
  const std::string accept = req.get_header_value("Accept");
  const std::string accept_encoding = req.get_header_value("Accept-Encoding");
  return resources.represent({req.path, authorization, accept, accept_encoding});
}

bool not_modified(const httplib::Request& req, const Representation& r) {
  const auto none_match = header(req, "If-None-Match");
  const auto modified_since = header(req, "If-Modified-Since");
  return not_modified(r, none_match, modified_since);
}

void answer_not_modified(httplib::Response& res, const Representation& r) {
  res.status = 304;
  set_validators(res, r);
}

void answer_resource(const httplib::Request& req, httplib::Response& res, const Representation& r) {
  set_validators(res, r);
  res.set_content(body_of(req.path, r), "application/json");
}

}  // namespace forgemeter::testforge
