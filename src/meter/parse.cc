#include "meter/parse.h"

#include <array>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <variant>

#include "core/terminal_text.h"
#include "meter/civil.h"
#include "meter/host_text.h"

namespace forgemeter::meter {

namespace {

constexpr std::string_view kCountHead = "forge HTTP: ";
constexpr std::string_view kCountWords = " requests in the hour ending ";
constexpr std::string_view kBudgetHead = "forge rate limit: lowest remaining in the hour ending ";
constexpr std::string_view kAnswersHead = "forge HTTP answers: in the hour ending ";
constexpr std::string_view kLanesHead = "forge HTTP lanes: in the hour ending ";
constexpr std::string_view kDash = " \u2014 ";

// A parse failure: the reason, carried out by exception inside this file only.
struct Bad {
  std::string reason;
};

[[noreturn]] void fail(std::string reason) { throw Bad{std::move(reason)}; }

std::string shown(std::string_view text) { return "'" + core_detail::terminal_text(text, 40) + "'"; }

// The failures, out of the readers' way (cold: a line that parses never calls them).
[[noreturn, gnu::cold, gnu::noinline]] void fail_expected(std::string_view what, std::string_view rest) {
  fail("expected " + std::string(what) + " at " + shown(rest));
}
[[noreturn, gnu::cold, gnu::noinline]] void fail_number(std::errc ec, std::string_view what, std::string_view rest) {
  if (ec == std::errc::result_out_of_range) fail(std::string(what) + " is too large");
  fail("expected " + std::string(what) + " (digits) at " + shown(rest));
}
[[noreturn, gnu::cold, gnu::noinline]] void fail_shown(std::string_view before, std::string_view text,
                                                       std::string_view after) {
  fail(std::string(before) + shown(text) + std::string(after));
}
[[noreturn, gnu::cold, gnu::noinline]] void fail_time(std::string_view what, std::string_view rest) {
  fail("expected " + std::string(what) + " as HH:MM:SSZ at " + shown(rest));
}

// A cursor over the line with the few reads the grammar needs.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : rest_(text) {}
  bool done() const { return rest_.empty(); }
  std::string_view rest() const { return rest_; }

  bool take(std::string_view literal) {
    if (rest_.size() < literal.size() || rest_[0] != literal[0]) return false;
    if (literal.size() <= 16) {  // the grammar's short words: a loop beats a call to memcmp
      for (std::size_t i = 1; i < literal.size(); ++i)
        if (rest_[i] != literal[i]) return false;
    } else if (std::memcmp(rest_.data(), literal.data(), literal.size()) != 0) {
      return false;
    }
    rest_.remove_prefix(literal.size());
    return true;
  }
  void expect(std::string_view literal, std::string_view what) {
    if (!take(literal)) [[unlikely]]
      fail_expected(what, rest_);
  }
  // Up to (not including) the next `stop` or the end.
  std::string_view until(char stop) {
    auto n = std::min(rest_.find(stop), rest_.size());
    auto tok = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return tok;
  }
  std::uint64_t number(std::string_view what) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(rest_.data(), rest_.data() + rest_.size(), v);
    if (ec != std::errc{}) [[unlikely]]
      fail_number(ec, what, rest_);
    rest_.remove_prefix(static_cast<std::size_t>(end - rest_.data()));
    return v;
  }
  void skip(std::size_t n) { rest_.remove_prefix(n); }
  TimeOfDay time(std::string_view what) {
    auto t = parse_time_of_day(rest_.substr(0, 9));
    if (!t) [[unlikely]]
      fail_time(what, rest_);
    rest_.remove_prefix(9);
    return *t;
  }

 private:
  std::string_view rest_;
};

// The three lines of an hour name the same hour: the last one read is kept
// (per thread) and a line naming it again skips the calendar arithmetic.
std::chrono::sys_seconds read_hour(Cursor& c) {
  constexpr std::size_t kLen = 17;  // YYYY-MM-DDTHH:00Z
  thread_local char last_text[kLen] = {};
  thread_local std::chrono::sys_seconds last_hour{};
  const std::string_view text = c.rest().substr(0, kLen);
  if (text.size() == kLen && std::memcmp(text.data(), last_text, kLen) == 0) {
    c.skip(kLen);
    return last_hour;
  }
  auto h = parse_hour(text);
  if (!h) [[unlikely]]
    fail_expected("the hour ending as YYYY-MM-DDTHH:00Z", c.rest());
  std::memcpy(last_text, text.data(), kLen);
  last_hour = *h;
  c.skip(kLen);
  return *h;
}

HourNote read_note(Cursor& c) {
  HourNote note;
  if (!c.take(" (")) return note;
  if (c.take("counted from ")) {
    note.counted_from = c.time("the counted-from time");
    if (!c.take(", ")) {
      c.expect(")", "')' closing the note");
      return note;
    }
  }
  c.expect("until ", "'counted from' or 'until' in the note");
  note.until = c.time("the until time");
  c.expect(", stopping)", "', stopping)' closing the note");
  return note;
}

// `<hour>[ (<note>)]`, then the dash and the entries (split on ", "), or the end.
template <class Line, class ReadEntry>
void read_body(Cursor& c, Line& line, ReadEntry read_entry) {
  line.hour_ending = read_hour(c);
  line.note = read_note(c);
  if (c.done()) return;
  c.expect(kDash, "' \u2014 ' before the entries");
  std::string_view rest = c.rest();
  for (;;) {
    auto n = std::min(rest.find(", "), rest.size());
    Cursor entry(rest.substr(0, n));
    read_entry(entry, line.entries.emplace_back());
    if (!entry.done()) [[unlikely]]
      fail_shown("unexpected text ", entry.rest(), " in an entry");
    if (n == rest.size()) break;
    rest.remove_prefix(n + 2);
  }
}

std::string_view read_host(Cursor& c) {
  for (auto reserved : {kOtherHosts, kNoHost})
    if (c.take(reserved)) return reserved;
  // One pass: the host is the run of host bytes, and it must end at a space
  // or the end (else the text up to the space has a byte no host holds).
  const std::string_view rest = c.rest();
  const std::size_t n = line_host_bytes(rest);
  if (n == 0 || (n < rest.size() && rest[n] != ' ')) [[unlikely]]
    fail_shown("host ", c.until(' '), " has a byte a line never holds");
  c.skip(n);
  return rest.substr(0, n);
}

std::string_view read_resource(Cursor& c) {
  const std::string_view rest = c.rest();
  const std::size_t n = line_resource_bytes(rest);
  if (n == 0 || n == rest.size() || rest[n] != ':') [[unlikely]]
    fail_shown("resource ", c.until(':'), " has a byte a line never holds");
  c.skip(n);
  return rest.substr(0, n);
}

Api read_api(Cursor& c) {
  c.expect(" ", "a space after the host");
  if (c.take("rest")) return Api::rest;
  if (c.take("graphql")) return Api::graphql;
  fail_shown("expected 'rest' or 'graphql' at ", c.rest(), "");
}

// Lane bytes: [a-z0-9._-]; 2 marks the ones a lane may also begin with.
constexpr auto kLaneByte = [] {
  std::array<std::uint8_t, 256> t{};
  for (unsigned c = 0; c < 256; ++c)
    t[c] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? 2 : (c == '.' || c == '_' || c == '-') ? 1 : 0;
  return t;
}();

bool lane_ok(std::string_view lane) {
  if (lane.empty() || lane.size() > 63) return false;
  for (char ch : lane)
    if (kLaneByte[static_cast<unsigned char>(ch)] == 0) return false;
  return kLaneByte[static_cast<unsigned char>(lane[0])] == 2;
}

// `<host> <api>[ installation <id>] <lane>` of a count or lanes entry, the
// lane ending at `stop` (or the end).
template <class Entry>
void read_lane_key(Cursor& c, Entry& e, char stop) {
  e.host = read_host(c);
  e.api = read_api(c);
  c.expect(" ", "a space after the api");
  // A lane may be named `installation`: only a digit after it begins an id.
  if (const auto rest = c.rest();
      rest.size() > 13 && rest.starts_with("installation ") && rest[13] >= '0' && rest[13] <= '9') {
    c.skip(13);
    e.installation = c.number("the installation id");
    c.expect(" ", "a space after the installation id");
  }
  auto lane = c.until(stop);
  if (!lane_ok(lane)) [[unlikely]]
    fail_shown("lane ", lane, " is not a lane name");
  e.lane = lane;
}

template <class Text>
void read_count_entry(Cursor& c, BasicCountEntry<Text>& e) {
  read_lane_key(c, e, '=');
  c.expect("=", "'=' after the lane");
  e.count = c.number("the count");
}

template <class Text>
void read_budget_entry(Cursor& c, BasicBudgetEntry<Text>& e) {
  e.host = read_host(c);
  e.api = read_api(c);
  c.expect(" installation ", "' installation ' after the api");
  e.installation = c.number("the installation id");
  if (c.take(" ")) e.resource = read_resource(c);
  c.expect(": ", "': ' after the installation id or resource");
  e.remaining = c.number("the remaining budget");
  if (c.take(" of ")) e.limit = c.number("the limit");
  c.expect(" at ", "' at ' before the time of the reading");
  e.at = c.time("the time of the reading");
  if (c.take(" (resets ")) {
    e.resets = c.time("the reset time");
    c.expect(")", "')' after the reset time");
  }
}

// `<name>=` of an entry's next field, fields coming in order, each at most
// once: the index (from `next`, below `n`) whose name_of() it is.
template <class NameOf>
std::size_t read_field_name(Cursor& c, std::size_t next, std::size_t n, NameOf name_of, std::string_view what) {
  const auto name = c.until('=');
  std::size_t i = next;
  while (i < n && name_of(i) != name) ++i;
  if (i == n) [[unlikely]]
    fail_shown(std::string(what) + " ", name, " is unknown or out of order");
  if (!c.take("=")) [[unlikely]]
    fail_expected("'=' after the " + std::string(what), c.rest());
  return i;
}

template <class Text>
void read_answers_entry(Cursor& c, BasicAnswersEntry<Text>& e) {
  e.host = read_host(c);
  e.api = read_api(c);
  auto class_name = [](std::size_t i) { return to_string(static_cast<AnswerClass>(i)); };
  for (std::size_t next = 0; c.take(" ");) {  // classes come in order, each at most once
    const std::size_t i = read_field_name(c, next, kAnswerClasses, class_name, "answer class");
    e.counts[i] = c.number("the answer count");
    next = i + 1;
  }
}

// `<host> <api>[ installation <id>] <lane>`, then its fields in order, each
// at most once: revalidated=<n> coalesced=<n>, then each wait as <n>ms.
template <class Text>
void read_lanes_entry(Cursor& c, BasicLanesEntry<Text>& e) {
  read_lane_key(c, e, ' ');
  auto field_name = [](std::size_t f) {
    return f == 0   ? std::string_view("revalidated")
           : f == 1 ? std::string_view("coalesced")
                    : to_string(static_cast<WaitCause>(f - 2));
  };
  for (std::size_t next = 0; c.take(" ");) {
    const std::size_t i = read_field_name(c, next, 2 + kWaitCauses, field_name, "lane field");
    const std::uint64_t n = c.number("the lane field's value");
    if (i == 0) e.revalidated = n;
    if (i == 1) e.coalesced = n;
    if (i >= 2) {
      e.waited_ms[i - 2] = n;
      c.expect("ms", "'ms' after the time waited");
    }
    next = i + 1;
  }
}

template <class Text>
void parse_count(Cursor& c, BasicCountLine<Text>& line) {
  c.expect(kCountHead, "the count line");
  line.total = c.number("the total");
  c.expect(kCountWords, "' requests in the hour ending '");
  read_body(c, line, read_count_entry<Text>);
  std::uint64_t sum = 0;
  for (const auto& e : line.entries) {
    if (e.count > std::numeric_limits<std::uint64_t>::max() - sum) fail("the entries' counts overflow");
    sum += e.count;
  }
  if (sum != line.total)
    fail("the total " + std::to_string(line.total) + " is not the entries' sum " + std::to_string(sum));
}

// `line` made to hold a `Line` with no entries (the rest the parser sets).
// A line of another kind leaves its entry vector in `idle` and takes that kind's.
template <class Line, class Text>
Line& hold(BasicMeterLine<Text>& line, IdleLines<Text>* idle) {
  if (Line* held = std::get_if<Line>(&line)) {
    held->entries.clear();
    return *held;
  }
  if (idle == nullptr) return line.template emplace<Line>();
  std::visit([&](auto& other) { std::get<std::decay_t<decltype(other)>>(*idle).entries.swap(other.entries); }, line);
  Line& fresh = line.template emplace<Line>();
  fresh.entries.swap(std::get<Line>(*idle).entries);
  fresh.entries.clear();
  return fresh;
}

}  // namespace

bool starts_meter_line(std::string_view text) noexcept {
  if (text.starts_with("forge rate limit:")) return true;
  if (!text.starts_with("forge HTTP")) return false;
  text.remove_prefix(10);
  if (text.starts_with(':')) return true;
  // `forge HTTP <word>:` (answers, lanes, or a word mistyped); prose such as
  // `forge HTTP client started` has no colon after its word.
  if (!text.starts_with(' ')) return false;
  std::size_t n = 1;
  while (n < text.size() && ((text[n] >= 'a' && text[n] <= 'z') || (text[n] >= 'A' && text[n] <= 'Z'))) ++n;
  return n > 1 && n < text.size() && text[n] == ':';
}

template <class Text>
bool parse_meter_line(std::string_view text, BasicMeterLine<Text>& line, std::string& reason, IdleLines<Text>* idle) {
  try {
    Cursor c(text);
    if (text.starts_with("forge rate limit:")) {
      auto& budget = hold<BasicBudgetLine<Text>>(line, idle);
      c.expect(kBudgetHead, "the budget line's words");
      read_body(c, budget, read_budget_entry<Text>);
    } else if (text.starts_with("forge HTTP answers:")) {
      auto& answers = hold<BasicAnswersLine<Text>>(line, idle);
      c.expect(kAnswersHead, "the answers line's words");
      read_body(c, answers, read_answers_entry<Text>);
    } else if (text.starts_with("forge HTTP lanes:")) {
      auto& lanes = hold<BasicLanesLine<Text>>(line, idle);
      c.expect(kLanesHead, "the lanes line's words");
      read_body(c, lanes, read_lanes_entry<Text>);
    } else {
      parse_count(c, hold<BasicCountLine<Text>>(line, idle));
    }
    return true;
  } catch (const Bad& bad) {
    reason = bad.reason;
    return false;
  }
}

template bool parse_meter_line(std::string_view, MeterLine&, std::string&, IdleLines<std::string>*);
template bool parse_meter_line(std::string_view, BasicMeterLine<std::string_view>&, std::string&,
                               IdleLines<std::string_view>*);

}  // namespace forgemeter::meter
