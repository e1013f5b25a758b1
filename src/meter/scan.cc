// LineReader::scan() and scan_line(): finding a meter line inside one log line
// and reading it (into views or owning text: the same parser).
//
// The line may follow any prefix (timestamp, level, logger name) and may sit
// inside a quoted string (JSON, logfmt) whose escapes it undoes first: the
// line ends at the first unescaped '"', or at the end of the log line; one
// escaped newline that ends the string is the line's end (Docker's json-file).
//
// The common case (no backslash, no control byte before the end) is found in
// one vectorised pass and read in place; anything else takes the general
// path, which copies the unescaped text into the reader's buffer.
#include <cstring>
#include <string>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "core/ascii.h"
#include "forgemeter/line_view.h"
#include "meter/parse.h"

namespace forgemeter {

namespace {

std::optional<std::uint32_t> read_u4(std::string_view t) {
  if (t.size() < 4) return std::nullopt;
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    int d = core_detail::hex_digit(t[i]);
    if (d < 0) return std::nullopt;
    v = v * 16 + static_cast<std::uint32_t>(d);
  }
  return v;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  auto put = [&](std::uint32_t b) { out += static_cast<char>(static_cast<unsigned char>(b)); };
  if (cp < 0x80) {
    put(cp);
  } else if (cp < 0x800) {
    put(0xC0 | (cp >> 6));
    put(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    put(0xE0 | (cp >> 12));
    put(0x80 | ((cp >> 6) & 0x3F));
    put(0x80 | (cp & 0x3F));
  } else {
    put(0xF0 | (cp >> 18));
    put(0x80 | ((cp >> 12) & 0x3F));
    put(0x80 | ((cp >> 6) & 0x3F));
    put(0x80 | (cp & 0x3F));
  }
}

// Undoes JSON string escapes in `t` (a lone backslash or a bad \u is an error).
std::optional<std::string> unescape(std::string_view t, std::string& why) {
  std::string out;
  out.reserve(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '\\') {
      out += t[i];
      continue;
    }
    if (++i == t.size()) return why = "the line ends in a lone backslash", std::nullopt;
    switch (t[i]) {
      case '"':
      case '\\':
      case '/': out += t[i]; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        auto cp = read_u4(t.substr(i + 1));
        if (!cp) return why = "a \\u escape without four hex digits", std::nullopt;
        i += 4;
        if (*cp >= 0xD800 && *cp < 0xDC00) {  // a surrogate pair
          auto lo = t.substr(i + 1).starts_with("\\u") ? read_u4(t.substr(i + 3)) : std::nullopt;
          if (!lo || *lo < 0xDC00 || *lo > 0xDFFF) return why = "a lone UTF-16 surrogate in a \\u escape", std::nullopt;
          cp = 0x10000 + ((*cp - 0xD800) << 10) + (*lo - 0xDC00);
          i += 6;
        } else if (*cp >= 0xDC00 && *cp <= 0xDFFF) {
          return why = "a lone UTF-16 surrogate in a \\u escape", std::nullopt;
        }
        append_utf8(out, *cp);
        break;
      }
      default: return why = "an unknown escape '\\" + std::string(1, t[i]) + "'", std::nullopt;
    }
  }
  return out;
}

// The end of the quoted-or-plain text starting at `from`: the first '"' not
// escaped by a backslash, or the end. Sets `escaped` when a backslash was seen.
std::size_t text_end(std::string_view log, std::size_t from, bool& escaped) {
  for (std::size_t i = from; i < log.size(); ++i) {
    if (log[i] == '\\') {
      escaped = true;
      ++i;
    } else if (log[i] == '"') {
      return i;
    }
  }
  return log.size();
}

bool special(unsigned char c) { return c == '"' || c == '\\' || c < 0x20 || c == 0x7f; }

// The first '"', '\\' or control byte in [from, end), or end.
std::size_t first_special(std::string_view t, std::size_t from) {
  std::size_t i = from;
#if defined(__x86_64__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), del = _mm_set1_epi8(0x7f),
                below = _mm_set1_epi8(0x1f);
  for (; i + 16 <= t.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data() + i));
    const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                     _mm_or_si128(_mm_cmpeq_epi8(v, del), _mm_cmpeq_epi8(_mm_min_epu8(v, below), v)));
    if (const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit)); mask != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(mask));
  }
#endif
  for (; i < t.size(); ++i)
    if (special(static_cast<unsigned char>(t[i]))) return i;
  return t.size();
}

// A string's text without one trailing escaped line end ("\n" or "\r\n"),
// then its trailing spaces: a JSON string that ends in the line's own newline
// (Docker's json-file records) holds the line, as a plain line does. A second
// newline stays, a control byte inside the line.
std::string_view line_end_dropped(std::string_view text) {
  if (text.ends_with('\n')) text.remove_suffix(text.ends_with("\r\n") ? 2 : 1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// The meter line in `log`: `line` with its text (in `log`, or in `decoded`
// when it had escapes to undo), `none`, or `malformed` with `reason` set.
struct Found {
  LineScan::Kind kind = LineScan::Kind::none;
  std::string_view text;
};

Found find_line(std::string_view log, std::string& decoded, std::string& reason) {
  for (std::size_t p = log.find("forge "); p != std::string_view::npos; p = log.find("forge ", p + 1)) {
    if (!meter::starts_meter_line(log.substr(p))) continue;
    std::string_view raw;
    const std::size_t stop = first_special(log, p);
    if (stop == log.size() || log[stop] == '"') {
      raw = log.substr(p, stop - p);  // in place: nothing to undo, no control byte
      while (!raw.empty() && raw.back() == ' ') raw.remove_suffix(1);
    } else {
      bool escaped = false;
      raw = log.substr(p, text_end(log, p, escaped) - p);
      while (!raw.empty() && (raw.back() == '\n' || raw.back() == '\r' || raw.back() == ' ' || raw.back() == '\t'))
        raw.remove_suffix(1);
      if (escaped) {
        auto text = unescape(raw, reason);
        if (!text) return {LineScan::Kind::malformed, {}};
        decoded = std::move(*text);
        raw = line_end_dropped(decoded);
      }
      for (char ch : raw) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7f) {
          reason = "a control byte inside the line";
          return {LineScan::Kind::malformed, {}};
        }
      }
    }
    return {LineScan::Kind::line, raw};
  }
  return {};
}

}  // namespace

LineScan::Kind LineReader::scan(std::string_view log) {
  const Found found = find_line(log, decoded_, reason_);
  if (found.kind != LineScan::Kind::line) return found.kind;
  return meter::parse_meter_line(found.text, line_, reason_, &idle_) ? LineScan::Kind::line : LineScan::Kind::malformed;
}

LineScan scan_line(std::string_view log) {
  std::string decoded;
  LineScan scan;
  const Found found = find_line(log, decoded, scan.reason);
  scan.kind = found.kind;
  if (found.kind == LineScan::Kind::line && !meter::parse_meter_line(found.text, scan.line, scan.reason))
    scan.kind = LineScan::Kind::malformed;
  return scan;
}

}  // namespace forgemeter
