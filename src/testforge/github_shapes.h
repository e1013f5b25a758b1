// github_shapes.h — the loopback forge's resources in GitHub's REST shapes,
// as far as real clients (octokit, PyGithub) need them to parse and page:
//
//   GET /repos/{o}/{r}            a repository: id, node_id, name, full_name,
//                                 owner {login, id, type}, private, url, html_url,
//                                 default_branch, pulls_url
//   GET /repos/{o}/{r}/pulls      the repository's pulls (ForgeOptions::pulls,
//                                 numbered 1..n), a page at a time: ?per_page
//                                 (default 30, at most 100) and ?page (from 1);
//                                 `Link` with absolute prev, next, last and first
//                                 URLs (the request's other parameters kept),
//                                 none when one page holds them all
//   GET /repos/{o}/{r}/pulls/{n}  a pull: id, node_id, number, state, title,
//                                 url, html_url, user {login, id, type},
//                                 head and base {label, ref, sha}, draft, locked
// Every URL is absolute on the forge's own origin: the listener's scheme and
// the request's Host, as GitHub writes https://api.github.com/… . The
// forge's own fields (path, state, version, viewer, media: resources.h) come
// first in an object, as before. Any other /repos/ path keeps its plain body.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace forgemeter::testforge {

struct Shape {
  enum Kind { repo, pull, pulls } kind = repo;
  std::string owner, repo_name;
  std::size_t number = 0;  // a pull's
};

// The shape of a /repos/ path, or nullopt for a plain resource.
std::optional<Shape> shape_of(std::string_view path);

// A repo's or a pull's fields after the forge's own, each starting with a
// comma (`,"id":1,…`): JSON text, every value made by nlohmann-json.
std::string shape_fields(const Shape& shape, std::string_view origin);

// The pull `number` of `owner/repo` as one object.
std::string pull_object(std::string_view origin, std::string_view owner, std::string_view repo, std::size_t number);

// The repository `owner/repo` as one object (GET /repos/{o}/{r}'s GitHub fields).
std::string repo_object(std::string_view origin, std::string_view owner, std::string_view repo);

struct Page {
  std::size_t page = 1, per_page = 30, last = 1;
};
// A list's page from its ?page and ?per_page (nullopt: absent) and the items it has.
Page page_of(std::optional<std::string_view> page, std::optional<std::string_view> per_page, std::size_t items);

}  // namespace forgemeter::testforge
