// A JSON body's URL strings rewritten as the body streams (url_rewrite.h).
#include "core/ascii.h"
#include "proxy/url_rewrite.h"

namespace forgemeter::proxy {
namespace {

// What the bytes at a string's start say: a base, not one, or not yet known.
enum class Seen { base, none, more };

bool ends_url_in_body(char c) noexcept { return c == '/' || c == '?' || c == '#' || c == '"' || c == '\\'; }

// Whether `work` from `at` starts with `base` ended at a boundary.
Seen starts_with_base(std::string_view work, std::size_t at, std::string_view base, bool final) {
  const std::string_view rest = work.substr(at);
  const std::size_t n = std::min(rest.size(), base.size());
  if (rest.substr(0, n) != base.substr(0, n)) return Seen::none;
  if (rest.size() <= base.size()) return final ? Seen::none : Seen::more;  // the boundary byte is yet to come
  return ends_url_in_body(rest[base.size()]) ? Seen::base : Seen::none;
}

}  // namespace

void BodyRewriter::scan(std::string_view work, bool final, std::string& out) {
  std::size_t emitted = 0;
  std::size_t quote = work.find('"');
  while (quote != std::string_view::npos) {
    const std::size_t at = quote + 1;
    const Seen plain = starts_with_base(work, at, r_.upstream_, final);
    const Seen escaped = plain == Seen::base ? Seen::none : starts_with_base(work, at, r_.upstream_escaped_, final);
    if (plain == Seen::more || escaped == Seen::more) {
      out.append(work, emitted, quote - emitted);
      held_.assign(work.substr(quote));
      return;
    }
    std::size_t next = at;
    if (plain == Seen::base || escaped == Seen::base) {
      out.append(work, emitted, at - emitted);
      out += plain == Seen::base ? r_.public_ : r_.public_escaped_;
      emitted = next = at + (plain == Seen::base ? r_.upstream_.size() : r_.upstream_escaped_.size());
    }
    quote = work.find('"', next);
  }
  out.append(work, emitted);
  held_.clear();
}

void BodyRewriter::write(std::string_view chunk, std::string& out) {
  if (held_.empty()) return scan(chunk, false, out);
  std::string work = std::move(held_);
  work.append(chunk);
  scan(work, false, out);
}

void BodyRewriter::finish(std::string& out) {
  std::string work = std::move(held_);
  held_.clear();
  scan(work, true, out);
}

bool rewrites_body(std::string_view content_type, std::string_view content_encoding) noexcept {
  const std::string_view encoding = core_detail::trimmed(content_encoding);
  if (!encoding.empty() && !core_detail::iequals(encoding, "identity")) return false;
  const std::string_view type = core_detail::trimmed(content_type.substr(0, content_type.find(';')));
  if (core_detail::iequals(type, "application/json")) return true;
  return core_detail::istarts_with(type, "application/") && type.size() > 17 &&
         core_detail::iequals(type.substr(type.size() - 5), "+json");
}

}  // namespace forgemeter::proxy
