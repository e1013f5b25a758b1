#include "report/log_record.h"

#include <array>
#include <utility>

#include "meter/parse.h"

namespace forgemeter::report {

namespace {

constexpr std::size_t npos = std::string_view::npos;
constexpr int kMostLayers = 4;  // prefixes nest this deep at most ([pod] CRI JSON …)

bool digit(char c) { return c >= '0' && c <= '9'; }

bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// A timestamp as ISO 8601 writes it: it starts `YYYY-MM-DD`.
bool iso_time(std::string_view t) {
  return t.size() >= 10 && digit(t[0]) && digit(t[1]) && digit(t[2]) && digit(t[3]) && t[4] == '-' && digit(t[5]) &&
         digit(t[6]) && t[7] == '-' && digit(t[8]) && digit(t[9]);
}

// Non-space bytes from `i` and one space: the offset after the space, or npos.
std::size_t token(std::string_view s, std::size_t i) {
  if (i >= s.size() || s[i] == ' ') return npos;
  const std::size_t sp = s.find(' ', i);
  return sp == npos ? npos : sp + 1;
}

// An ISO timestamp token and its space.
std::size_t iso_token(std::string_view s, std::size_t i) {
  const std::size_t j = token(s, i);
  return j != npos && iso_time(s.substr(i, j - 1 - i)) ? j : npos;
}

// `<PRI>`: the offset after it, or `i` when there is none.
std::size_t skip_pri(std::string_view s, std::size_t i) {
  if (i >= s.size() || s[i] != '<') return i;
  std::size_t j = i + 1;
  while (j < s.size() && digit(s[j])) ++j;
  return j > i + 1 && j < s.size() && s[j] == '>' ? j + 1 : i;
}

// `Sep 30 15:00:01` (`Sep  3`; a fraction with short-precise) and its space.
std::size_t bsd_time(std::string_view s, std::size_t i) {
  if (i + 16 > s.size()) return npos;
  const std::string_view t = s.substr(i);
  if (!letter(t[0]) || !letter(t[1]) || !letter(t[2]) || t[3] != ' ' || !(t[4] == ' ' || digit(t[4])) || !digit(t[5]) ||
      t[6] != ' ' || !digit(t[7]) || !digit(t[8]) || t[9] != ':' || !digit(t[10]) || !digit(t[11]) || t[12] != ':' ||
      !digit(t[13]) || !digit(t[14]))
    return npos;
  std::size_t j = 15;
  if (t[j] == '.')
    for (++j; j < t.size() && digit(t[j]);) ++j;
  return j < t.size() && t[j] == ' ' ? i + j + 1 : npos;
}

// `[pod/web-1/app] ` (kubectl logs --prefix).
std::size_t kubectl_prefix(std::string_view s, std::size_t i) {
  if (i >= s.size() || s[i] != '[') return npos;
  const std::size_t close = s.find("] ", i);
  if (close == npos || close == i + 1 || s.substr(i, close - i).find(' ') != npos) return npos;
  return close + 2;
}

// `2026-09-30T15:00:01.5Z stderr F ` (a CRI record; P too).
std::size_t cri_prefix(std::string_view s, std::size_t i) {
  const std::size_t j = iso_token(s, i);
  if (j == npos) return npos;
  const std::string_view r = s.substr(j);
  if (!(r.starts_with("stdout ") || r.starts_with("stderr ")) || r.size() < 9 || (r[7] != 'F' && r[7] != 'P') ||
      r[8] != ' ')
    return npos;
  return j + 9;
}

// `[<PRI>]TIMESTAMP HOST TAG: ` (RFC 3164 as files keep it; journald's short forms).
std::size_t syslog_prefix(std::string_view s, std::size_t i) {
  i = skip_pri(s, i);
  std::size_t j = bsd_time(s, i);
  if (j == npos) j = iso_token(s, i);
  j = token(s, j);  // the host
  if (j == npos) return npos;
  const std::size_t colon = s.find(": ", j);
  if (colon == npos || colon == j || s.substr(j, colon - j).find(' ') != npos) return npos;
  return colon + 2;
}

// `<PRI>1 TIMESTAMP HOST APP PROCID MSGID SD [BOM]` (RFC 5424).
std::size_t rfc5424_prefix(std::string_view s, std::size_t i) {
  std::size_t j = skip_pri(s, i);
  if (j == i || !s.substr(j).starts_with("1 ")) return npos;
  j += 2;
  for (int field = 0; field < 5 && j != npos; ++field) j = token(s, j);
  if (j == npos || j >= s.size()) return npos;
  if (s[j] == '-') {
    ++j;
  } else {
    while (j < s.size() && s[j] == '[') {  // structured data: `]` ends an element outside a quoted value
      bool quoted = false;
      for (++j; j < s.size() && (quoted || s[j] != ']'); ++j) {
        if (s[j] == '\\')
          ++j;
        else if (s[j] == '"')
          quoted = !quoted;
      }
      if (j >= s.size()) return npos;
      ++j;
    }
  }
  if (j >= s.size() || s[j] != ' ') return npos;
  ++j;
  return s.substr(j).starts_with("\xEF\xBB\xBF") ? j + 3 : j;
}

// In a JSON record: the marker opens the value of a message key.
bool json_message(std::string_view s, std::size_t at) {
  std::string_view before = s.substr(0, at);
  if (!before.ends_with('"')) return false;
  before.remove_suffix(1);
  while (before.ends_with(' ')) before.remove_suffix(1);
  if (!before.ends_with(':')) return false;
  before.remove_suffix(1);
  static constexpr std::array<std::string_view, 4> kKeys = {R"("log")", R"("msg")", R"("message")", R"("MESSAGE")"};
  for (std::string_view key : kKeys)
    if (before.ends_with(key)) return true;
  return false;
}

bool starts_from(std::string_view s, std::size_t i, std::size_t at, int depth) {
  if (i == at) return true;
  if (i > at || depth == 0) return false;
  if (s[i] == '{') return json_message(s, at);
  using Prefix = std::size_t (*)(std::string_view, std::size_t);
  for (Prefix prefix : {&kubectl_prefix, &cri_prefix, &rfc5424_prefix, &syslog_prefix})
    if (const std::size_t j = prefix(s, i); j != npos && starts_from(s, j, at, depth - 1)) return true;
  return false;
}

}  // namespace

std::size_t meter_marker(std::string_view line, std::size_t from) noexcept {
  for (std::size_t p = line.find(kMarker, from); p != npos; p = line.find(kMarker, p + 1))
    if (meter::starts_meter_line(line.substr(p))) return p;
  return npos;
}

bool starts_message(std::string_view line, std::size_t at) noexcept {
  return at <= line.size() && starts_from(line, 0, at, kMostLayers);
}

bool cri_partial(std::string_view line) noexcept {
  // On every marked line: the cheap tests first (the flag's place after the first space).
  if (line.empty() || !digit(line[0])) return false;
  const std::size_t sp = line.substr(0, 48).find(' ');
  if (sp == npos || sp + 10 > line.size() || line[sp + 8] != 'P' || line[sp + 9] != ' ') return false;
  const std::string_view stream = line.substr(sp + 1, 7);
  return (stream == "stdout " || stream == "stderr ") && iso_time(line.substr(0, sp));
}

std::optional<CriRecord> cri_record(std::string_view line) noexcept {
  const std::size_t text = cri_prefix(line, 0);
  if (text == npos) return std::nullopt;
  return CriRecord{line[text - 6] == 'e', line[text - 2] == 'P', text - 2, text};  // std(e)rr, std(o)ut
}

std::size_t escaped_line_end(std::string_view line, std::size_t at) noexcept {
  std::size_t last = npos, before_last = npos;  // the backslashes of the last two escapes
  for (std::size_t i = at; i < line.size(); ++i) {
    if (line[i] == '\\') {
      before_last = std::exchange(last, i);
      ++i;
    } else if (line[i] == '"') {
      if (last == npos || last + 2 != i || line[last + 1] != 'n') return npos;
      const bool crlf = before_last != npos && before_last + 2 == last && line[before_last + 1] == 'r';
      return crlf ? before_last : last;
    }
  }
  return npos;
}

}  // namespace forgemeter::report
