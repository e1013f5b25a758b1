// format_line(): the four lines, byte-exact (grammar in forgemeter/lines.h).
#include <fmt/format.h>

#include "forgemeter/lines.h"
#include "meter/civil.h"
#include "meter/host_text.h"

namespace forgemeter {

namespace {

constexpr std::string_view kDash = " \u2014 ";  // U+2014 with a space each side
constexpr std::string_view kClassNames[kAnswerClasses] = {"2xx", "304",  "3xx",     "limited",   "secondary",  "4xx",
                                                          "5xx", "none", "refused", "coalesced", "revalidated"};

constexpr std::string_view kWaitNames[kWaitCauses] = {"paused", "paced", "spaced"};

void append_uint(std::string& out, std::uint64_t v) { fmt::format_to(std::back_inserter(out), "{}", v); }

void append_lane(std::string& out, std::string_view lane) {
  // Lanes are [a-z0-9._-] by construction; anything else is written as '?'
  // rather than let a hand-made value break the line.
  if (lane.empty()) lane = "other";
  for (char c : lane) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    out += ok ? c : '?';
  }
}

// `<prefix><hour>[ (<note>)]`, then the dash when there are entries.
void append_head(std::string& out, std::string_view prefix, std::chrono::sys_seconds hour_ending, const HourNote& note,
                 bool entries) {
  out += prefix;
  meter::append_hour(out, hour_ending);
  if (!note.whole()) {
    out += " (";
    if (note.counted_from) {
      out += "counted from ";
      meter::append_time_of_day(out, *note.counted_from);
      if (note.until) out += ", ";
    }
    if (note.until) {
      out += "until ";
      meter::append_time_of_day(out, *note.until);
      out += ", stopping";
    }
    out += ')';
  }
  if (entries) out += kDash;
}

// The entries after the head, joined by ", ".
template <class Entries, class AppendEntry>
void append_entries(std::string& out, const Entries& entries, AppendEntry append_entry) {
  const char* sep = "";
  for (const auto& e : entries) {
    out += sep;
    sep = ", ";
    append_entry(e);
  }
}

void append_host_api(std::string& out, std::string_view host, Api api) {
  meter::append_host(out, host);
  out += ' ';
  out += to_string(api);
}

// `<host> <api>[ installation <id>] <lane>`: a count or lanes entry's key.
template <class Entry>
void append_lane_key(std::string& out, const Entry& e) {
  append_host_api(out, e.host, e.api);
  if (e.installation != 0) {
    out += " installation ";
    append_uint(out, e.installation);
  }
  out += ' ';
  append_lane(out, e.lane);
}

std::string format_count(const CountLine& line) {
  std::string out;
  out += "forge HTTP: ";
  append_uint(out, line.total);
  append_head(out, " requests in the hour ending ", line.hour_ending, line.note, !line.entries.empty());
  append_entries(out, line.entries, [&](const auto& e) {
    append_lane_key(out, e);
    out += '=';
    append_uint(out, e.count);
  });
  return out;
}

std::string format_budget(const BudgetLine& line) {
  std::string out;
  append_head(out, "forge rate limit: lowest remaining in the hour ending ", line.hour_ending, line.note,
              !line.entries.empty());
  append_entries(out, line.entries, [&](const auto& e) {
    append_host_api(out, e.host, e.api);
    out += " installation ";
    append_uint(out, e.installation);
    if (!e.resource.empty()) {
      out += ' ';
      meter::append_resource(out, e.resource);
    }
    out += ": ";
    append_uint(out, e.remaining);
    if (e.limit) {
      out += " of ";
      append_uint(out, *e.limit);
    }
    out += " at ";
    meter::append_time_of_day(out, e.at);
    if (e.resets) {
      out += " (resets ";
      meter::append_time_of_day(out, *e.resets);
      out += ')';
    }
  });
  return out;
}

std::string format_answers(const AnswersLine& line) {
  std::string out;
  append_head(out, "forge HTTP answers: in the hour ending ", line.hour_ending, line.note, !line.entries.empty());
  append_entries(out, line.entries, [&](const auto& e) {
    append_host_api(out, e.host, e.api);
    for (std::size_t c = 0; c < kAnswerClasses; ++c) {
      if (e.counts[c] == 0) continue;
      out += ' ';
      out += kClassNames[c];
      out += '=';
      append_uint(out, e.counts[c]);
    }
  });
  return out;
}

std::string format_lanes(const LanesLine& line) {
  std::string out;
  append_head(out, "forge HTTP lanes: in the hour ending ", line.hour_ending, line.note, !line.entries.empty());
  append_entries(out, line.entries, [&](const auto& e) {
    append_lane_key(out, e);
    auto field = [&](std::string_view name, std::uint64_t n, std::string_view unit) {
      if (n == 0) return;
      out += ' ';
      out += name;
      out += '=';
      append_uint(out, n);
      out += unit;
    };
    field("revalidated", e.revalidated, "");
    field("coalesced", e.coalesced, "");
    for (std::size_t c = 0; c < kWaitCauses; ++c) field(kWaitNames[c], e.waited_ms[c], "ms");
  });
  return out;
}

}  // namespace

std::string_view to_string(WaitCause c) noexcept {
  const auto i = static_cast<std::size_t>(c);
  return i < kWaitCauses ? kWaitNames[i] : std::string_view("?");
}

std::string_view to_string(AnswerClass c) noexcept {
  const auto i = static_cast<std::size_t>(c);
  return i < kAnswerClasses ? kClassNames[i] : std::string_view("?");
}

std::string format_line(const MeterLine& line) {
  struct Visit {
    std::string operator()(const CountLine& l) const { return format_count(l); }
    std::string operator()(const BudgetLine& l) const { return format_budget(l); }
    std::string operator()(const AnswersLine& l) const { return format_answers(l); }
    std::string operator()(const LanesLine& l) const { return format_lanes(l); }
  };
  return std::visit(Visit{}, line);
}

}  // namespace forgemeter
