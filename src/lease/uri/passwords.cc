#include "lease/uri/passwords.h"

#include "core/components.h"
#if FORGEMETER_HAS_POSTGRES
#include <libpq-fe.h>
#endif

#include <algorithm>

#include "core/ascii.h"

namespace forgemeter::lease_uri {

using core_detail::hex_digit;

namespace {

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex_digit(s[i + 1]) >= 0 && hex_digit(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// A keyword libpq knows (host, dbname, ...): after `password=x`, a `word=...`
// that is not one is probably the rest of a password with a space in it.
// (Without libpq, no word is: more is scrubbed, never less.)
bool libpq_keyword(std::string_view key) {
  static const std::vector<std::string> known = [] {
    std::vector<std::string> k;
#if FORGEMETER_HAS_POSTGRES
    if (PQconninfoOption* d = PQconndefaults()) {
      for (PQconninfoOption* o = d; o->keyword != nullptr; ++o) k.emplace_back(o->keyword);
      PQconninfoFree(d);
    }
#endif
    return k;
  }();
  return std::find(known.begin(), known.end(), key) != known.end();
}

void add_to(std::vector<std::string>& out, std::string_view s) {
  if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.emplace_back(s);
}

void uri_fragments(std::string_view store, std::vector<std::string>& out) {
  std::string_view rest = store.substr(store.find("://") + 3);
  const std::size_t query = rest.find('?');
  std::size_t at = rest.substr(0, query).rfind('@');  // the last '@': a password may hold '@' or '/'
  if (at == std::string_view::npos) at = rest.rfind('@');
  if (at != std::string_view::npos) {
    std::string_view userinfo = rest.substr(0, at);
    if (auto colon = userinfo.find(':'); colon != std::string_view::npos) {
      add_to(out, userinfo.substr(colon + 1));
      add_to(out, percent_decoded(userinfo.substr(colon + 1)));
    }
  }
  if (query == std::string_view::npos) return;
  std::string_view params = rest.substr(query + 1);
  while (!params.empty()) {
    std::size_t amp = params.find('&');
    std::string_view p = params.substr(0, amp);
    if (p.substr(0, 9) == "password=") {
      add_to(out, p.substr(9));
      add_to(out, percent_decoded(p.substr(9)));
    }
    params = amp == std::string_view::npos ? std::string_view() : params.substr(amp + 1);
  }
}

// Reads `key = value` pairs like libpq (values quoted with '…' or bare, with
// backslash escapes); keeps the value of `password` and, after it, any word
// that is not a `keyword=` libpq knows.
void conninfo_fragments(std::string_view s, std::vector<std::string>& out) {
  std::size_t i = 0;
  bool after_password = false;
  auto skip = [&] {
    while (i < s.size() && space(s[i])) ++i;
  };
  while (true) {
    skip();
    if (i >= s.size()) return;
    const std::size_t k0 = i;
    while (i < s.size() && !space(s[i]) && s[i] != '=') ++i;
    std::string_view key = s.substr(k0, i - k0);
    skip();
    if (i >= s.size() || s[i] != '=') {
      if (after_password) add_to(out, key);
      continue;
    }
    ++i;
    skip();
    const bool quoted = i < s.size() && s[i] == '\'';
    if (quoted) ++i;
    const std::size_t v0 = i;
    std::string value;
    while (i < s.size() && (quoted ? s[i] != '\'' : !space(s[i]))) {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      value.push_back(s[i++]);
    }
    const std::size_t v1 = i;
    if (quoted && i < s.size()) ++i;
    if (key == "password" || (after_password && !libpq_keyword(key))) {
      if (key != "password") add_to(out, key);
      add_to(out, s.substr(v0, v1 - v0));
      add_to(out, value);
      after_password = true;
    } else {
      after_password = false;
    }
  }
}

}  // namespace

std::vector<std::string> store_passwords(std::string_view store) {
  std::vector<std::string> out;
#if FORGEMETER_HAS_POSTGRES
  const std::string text(store);
  char* err = nullptr;
  if (PQconninfoOption* opts = PQconninfoParse(text.c_str(), &err)) {
    for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o)
      if (std::string_view(o->keyword) == "password" && o->val != nullptr) add_to(out, o->val);
    PQconninfoFree(opts);
  }
  if (err != nullptr) PQfreemem(err);
#endif
  const std::size_t scheme = store.find("://");
  if (scheme != std::string_view::npos)
    uri_fragments(store, out);
  else
    conninfo_fragments(store, out);
  return out;
}

}  // namespace forgemeter::lease_uri
