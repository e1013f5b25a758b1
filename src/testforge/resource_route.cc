// GET /repos/...: the forge's resources (resources.h) over HTTP, in GitHub's
// shapes where it has them (github_shapes.h).
#include "testforge/github_shapes.h"
#include "testforge/routes.h"

namespace forgemeter::testforge {
namespace {

std::optional<std::string> header(const httplib::Request& req, const char* name) {
  if (!req.has_header(name)) return std::nullopt;
  return req.get_header_value(name);
}

std::optional<std::string> param(const httplib::Request& req, const char* name) {
  if (!req.has_param(name)) return std::nullopt;
  return req.get_param_value(name);
}

void set_validators(httplib::Response& res, const Representation& r) {
  res.set_header("ETag", r.etag);
  res.set_header("Last-Modified", http_date(r.last_modified));
  res.set_header("Vary", std::string(kVary));
}

Page list_page(const httplib::Request& req, std::size_t items) {
  const auto page = param(req, "page");
  const auto per_page = param(req, "per_page");
  return page_of(page, per_page, items);
}

// GitHub's Link: absolute URLs of the other pages, the request's other parameters kept.
std::string link_of(const httplib::Request& req, const std::string& origin, const Page& p) {
  const auto url = [&](std::size_t page) {
    httplib::Params params = req.params;
    params.erase("page");
    params.emplace("page", std::to_string(page));
    return "<" + origin + req.path + "?" + httplib::detail::params_to_query_str(params) + ">";
  };
  std::string link;
  const auto add = [&link](const std::string& target, const char* rel) {
    link += (link.empty() ? "" : ", ") + target + "; rel=\"" + rel + "\"";
  };
  if (p.page > 1) add(url(std::min(p.page - 1, p.last)), "prev");
  if (p.page < p.last) add(url(p.page + 1), "next");
  if (p.page != p.last) add(url(p.last), "last");
  if (p.page > 1) add(url(1), "first");
  return link;
}

void answer_list(const httplib::Request& req, httplib::Response& res, const Shape& s, std::size_t items,
                 const std::string& origin) {
  const Page p = list_page(req, items);
  std::string body = "[";
  for (std::size_t n = (p.page - 1) * p.per_page + 1; n <= std::min(items, p.page * p.per_page); ++n)
    body += (body.size() > 1 ? "," : "") + pull_object(origin, s.owner, s.repo_name, n);
  body += "]";
  if (p.last > 1) res.set_header("Link", link_of(req, origin, p));
  res.set_content(body, "application/json");
}

}  // namespace

std::string origin_of(const httplib::Request& req, const Listener& where) {
  std::string host = req.get_header_value("Host");
  if (host.empty()) host = "127.0.0.1:" + std::to_string(where.port);
  return where.scheme + "://" + host;
}

bool is_resource_read(const httplib::Request& req) {
  return (req.method == "GET" || req.method == "HEAD") && req.path.starts_with("/repos/");
}

Representation represent(const Resources& resources, const httplib::Request& req) {
  const std::string authorization = req.get_header_value("Authorization");
  const std::string accept = req.get_header_value("Accept");
  const std::string accept_encoding = req.get_header_value("Accept-Encoding");
  std::string variant;
  if (const auto s = shape_of(req.path); s && s->kind == Shape::pulls) {
    const Page p = list_page(req, resources.pulls());
    variant = "page=" + std::to_string(p.page) + "&per_page=" + std::to_string(p.per_page);
  }
  return resources.represent({req.path, authorization, accept, accept_encoding, variant});
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

void answer_resource(const httplib::Request& req, httplib::Response& res, const Representation& r,
                     const Resources& resources, const Listener& where) {
  set_validators(res, r);
  const auto shape = shape_of(req.path);
  const std::string origin = origin_of(req, where);
  if (shape && shape->kind == Shape::pulls) return answer_list(req, res, *shape, resources.pulls(), origin);
  std::string body = body_of(req.path, r);
  if (shape) body.insert(body.size() - 1, shape_fields(*shape, origin));
  res.set_content(body, "application/json");
}

}  // namespace forgemeter::testforge
