#include "transport/cache/cache_entry.h"

#include "core/ascii.h"
#include "core/http_token.h"
#include "core/origin.h"

namespace forgemeter::transport_detail {
namespace {

using core_detail::iequals;

// A list field's comma-separated members, trimmed (any case kept).
template <class F>
void each_member(std::string_view list, F&& f) {
  while (!list.empty()) {
    const auto comma = list.find(',');
    const std::string_view m = core_detail::trimmed(list.substr(0, comma));
    if (!m.empty()) f(m);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}

// Whether any `name` field of `h` lists `member` (a directive may carry `=…`).
bool lists(const Headers& h, std::string_view name, std::string_view member) {
  bool found = false;
  for (auto [n, v] : h)
    if (iequals(n, name))
      each_member(v, [&](std::string_view m) { found = found || iequals(m.substr(0, m.find('=')), member); });
  return found;
}

bool has_field(const Headers& h, std::string_view name) {
  for (auto [n, v] : h)
    if (iequals(n, name)) return true;
  return false;
}

// The names every Vary field lists, lower-case; false for `*` or a bad name.
bool vary_names(const Headers& h, std::vector<std::string>& out) {
  bool usable = true;
  for (auto [n, v] : h)
    if (iequals(n, "Vary"))
      each_member(v, [&](std::string_view m) {
        if (m == "*" || !core_detail::is_token(m)) usable = false;
        out.push_back(core_detail::ascii_lowercase(m));
      });
  return usable;
}

}  // namespace

std::size_t cost_of(const CacheEntry& e, std::size_t key_size) noexcept {
  constexpr std::size_t kOverhead = 256;  // the entry, its list and index nodes
  std::size_t n = kOverhead + key_size + e.body.size() + e.headers.raw().size() + e.headers.size() * 16 +
                  e.etag.size() + e.last_modified.size() + e.vary_digest.size();
  for (const auto& v : e.vary) n += v.size() + sizeof(std::string);
  return n;
}

std::string usable_validator(std::string_view value) {
  if (value.empty() || value.size() > kMaxValidator || core_detail::has_control(value)) return {};
  return std::string(value);
}

bool stayed_on_origin(const Request& r, const Response& res) {
  std::string own;  // parsed only when a hop went elsewhere than the request's URL
  for (const Hop& h : res.hops) {
    if (h.url == r.url) continue;
    if (own.empty()) own = core_detail::origin_key(r.url);
    if (own.empty() || core_detail::origin_key(h.url) != own) return false;
  }
  return true;
}

std::shared_ptr<const CacheEntry> entry_for(const Request& r, const Response& res, const KeyHasher& keys,
                                            std::size_t max_entry_bytes) {
  if (!res.ok() || res.status != 200 || res.body.size() > max_entry_bytes) return nullptr;
  const Headers& h = res.headers;
  if (lists(h, "Cache-Control", "no-store") || has_field(h, "Set-Cookie")) return nullptr;
  auto e = std::make_shared<CacheEntry>();
  e->etag = usable_validator(h.find("ETag").value_or(""));
  e->last_modified = usable_validator(h.find("Last-Modified").value_or(""));
  if (e->etag.empty() && e->last_modified.empty()) return nullptr;
  if (!vary_names(h, e->vary)) return nullptr;
  if (!stayed_on_origin(r, res)) return nullptr;
  if (!e->vary.empty()) e->vary_digest = keys.vary_digest(r, e->vary);
  e->headers = h;
  e->body = res.body;
  e->bytes = cost_of(*e, sizeof(Sip128));
  if (e->bytes > max_entry_bytes) return nullptr;
  return e;
}

}  // namespace forgemeter::transport_detail
