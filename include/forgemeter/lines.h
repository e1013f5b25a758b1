// forgemeter/lines.h — the four hourly lines, as values: format and parse.
//
// The grep contract (byte-exact; "—" is U+2014 with a space each side):
//
//   forge HTTP: <N> requests in the hour ending <YYYY-MM-DDTHH:00Z>[ (<note>)] — <entry>, …
//       entry: <host> <api>[ installation <id>] <lane>=<n>
//   forge rate limit: lowest remaining in the hour ending <…>[ (<note>)] — <budget>, …
//       budget: <host> <api> installation <id>[ <resource>]: <remaining>[ of <limit>] at <HH:MM:SSZ>[ (resets <HH:MM:SSZ>)]
//   forge HTTP answers: in the hour ending <…>[ (<note>)] — <host> <api> <class>=<n> …, …
//   forge HTTP lanes: in the hour ending <…>[ (<note>)] — <host> <api>[ installation <id>] <lane> <field>=<n> …, …
//       field: revalidated=<n> coalesced=<n> paused=<ms>ms paced=<ms>ms spaced=<ms>ms (each when non-zero)
//   note: `counted from HH:MM:SSZ` | `until HH:MM:SSZ, stopping` | both, joined by ", "
//
// Entry order, resources and classes: at the line types below. The Meter's
// rules for reading rate-limit headers and classing answers: docs/rate-limits.md.
// One model over its text: MeterLine owns it (std::string); a LineView
// (forgemeter/line_view.h) is the same types over std::string_view.
//
// Thread-safety: pure functions over values. Errors: scan_line() never throws
// and reports malformed input as a value with a reason; format_line() never
// throws except std::bad_alloc.
#pragma once

#include "forgemeter/export.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "forgemeter/url.h"

namespace forgemeter {

using TimeOfDay = std::chrono::seconds;  // seconds after 00:00:00Z, [0, 86400)

struct FORGEMETER_API HourNote {
  std::optional<TimeOfDay> counted_from{};  // counting began after the hour started
  std::optional<TimeOfDay> until{};         // flushed by a stop inside the hour
  bool whole() const { return !counted_from && !until; }
  friend bool operator==(const HourNote&, const HourNote&) = default;
};

// The two host names a line may hold that no real host can take (hosts are
// written with every space, comma, `=`, quote, backslash, parenthesis, `%` and
// byte outside printable ASCII escaped as %XX, lower-case hex):
inline constexpr std::string_view kOtherHosts = "(other hosts)";  // hosts past the hour's limit
inline constexpr std::string_view kNoHost = "(no host)";          // a request whose URL had no host

// Every type below is a template over its text (std::string here;
// std::string_view in forgemeter/line_view.h), named here for std::string.
template <class Text>
struct FORGEMETER_API BasicCountEntry {
  Text host{};
  Api api = Api::rest;
  std::uint64_t installation = 0;  // 0 = none
  Text lane{};                     // "other" for untagged
  std::uint64_t count = 0;
  friend bool operator==(const BasicCountEntry&, const BasicCountEntry&) = default;
};
using CountEntry = BasicCountEntry<std::string>;

// Entries by count descending; then host, api, lane (`other` first),
// installation ascending (none first), by bytes.
template <class Text>
struct FORGEMETER_API BasicCountLine {
  std::chrono::sys_seconds hour_ending{};  // the hour's start + 1h, on the hour
  HourNote note{};
  std::uint64_t total = 0;  // the sum of the entries' counts
  std::vector<BasicCountEntry<Text>> entries{};
  friend bool operator==(const BasicCountLine&, const BasicCountLine&) = default;
};
using CountLine = BasicCountLine<std::string>;

// The bucket an API's answers are charged to when they name none: `core` for
// REST, `graphql` for GraphQL (GitHub's names).
constexpr std::string_view default_resource(Api api) noexcept { return api == Api::graphql ? "graphql" : "core"; }

template <class Text>
struct FORGEMETER_API BasicBudgetEntry {
  Text host{};
  Api api = Api::rest;
  std::uint64_t installation = 0;
  Text resource{};  // "" = default_resource(api); else escaped like a host, ':' too
  std::uint64_t remaining = 0;
  std::optional<std::uint64_t> limit{};
  TimeOfDay at{};  // when the lowest reading was seen
  std::optional<TimeOfDay> resets{};
  friend bool operator==(const BasicBudgetEntry&, const BasicBudgetEntry&) = default;
};
using BudgetEntry = BasicBudgetEntry<std::string>;

// Entries by host, api, installation, resource (the default first, then bytes).
// The resource is written only when not the API's default (default_resource()).
template <class Text>
struct FORGEMETER_API BasicBudgetLine {
  std::chrono::sys_seconds hour_ending{};
  HourNote note{};
  std::vector<BasicBudgetEntry<Text>> entries{};
  friend bool operator==(const BasicBudgetLine&, const BasicBudgetLine&) = default;
};
using BudgetLine = BasicBudgetLine<std::string>;

// `limited`: a 403/429 saying the primary budget is spent (remaining 0);
// `secondary`: any other 429, or a 403 with Retry-After or whose body says
// "secondary rate limit"; any other 403 is `4xx`. `refused`, `coalesced` and
// `revalidated` are no answers on the wire: a request refused before sending,
// a request that took the answer of an identical one in flight (a Transport
// cache's follower), and, of the `304`s, those a cache turned into its kept
// answer (docs/cache.md). The classes up to `none` sum to N.
enum class AnswerClass : std::uint8_t {
  ok2xx,
  not_modified,
  redirect3xx,
  limited,
  secondary,
  client4xx,
  server5xx,
  none,
  refused,
  coalesced,
  revalidated
};
inline constexpr std::size_t kAnswerClasses = 11;
// "2xx", "304", "3xx", "limited", "secondary", "4xx", "5xx", "none", "refused",
// "coalesced", "revalidated".
FORGEMETER_API std::string_view to_string(AnswerClass c) noexcept;

template <class Text>
struct FORGEMETER_API BasicAnswersEntry {
  Text host{};
  Api api = Api::rest;
  std::array<std::uint64_t, kAnswerClasses> counts{};  // indexed by AnswerClass
  friend bool operator==(const BasicAnswersEntry&, const BasicAnswersEntry&) = default;
};
using AnswersEntry = BasicAnswersEntry<std::string>;

// Entries by host, api; each entry lists its classes in AnswerClass order
// (2xx 304 3xx limited secondary 4xx 5xx none refused coalesced revalidated),
// each only when non-zero.
template <class Text>
struct FORGEMETER_API BasicAnswersLine {
  std::chrono::sys_seconds hour_ending{};
  HourNote note{};
  std::vector<BasicAnswersEntry<Text>> entries{};
  friend bool operator==(const BasicAnswersLine&, const BasicAnswersLine&) = default;
};
using AnswersLine = BasicAnswersLine<std::string>;

// Why a lane's request waited before going on the wire: `pause`, the forge
// said to (a secondary limit's Retry-After or pause); `pacing`, a governor
// spread the lane's budget over the hour; `secondary`, the Transport kept
// under GitHub's documented secondary limits on its own.
enum class WaitCause : std::uint8_t { pause, pacing, secondary };
inline constexpr std::size_t kWaitCauses = 3;
// "paused", "paced", "spaced": the lanes line's names for the causes' waits.
FORGEMETER_API std::string_view to_string(WaitCause c) noexcept;

// What one lane was spared and how long it waited, in one hour (docs/cache.md):
// `revalidated` and `coalesced` as on the answers line, charged to the lane;
// the waits in milliseconds, summed (never wrapping: they stop at the maximum).
template <class Text>
struct FORGEMETER_API BasicLanesEntry {
  Text host{};
  Api api = Api::rest;
  std::uint64_t installation = 0;  // 0 = none
  Text lane{};                     // "other" for untagged
  std::uint64_t revalidated = 0;
  std::uint64_t coalesced = 0;
  std::array<std::uint64_t, kWaitCauses> waited_ms{};  // indexed by WaitCause
  bool empty() const noexcept { return revalidated == 0 && coalesced == 0 && waited_ms == decltype(waited_ms){}; }
  friend bool operator==(const BasicLanesEntry&, const BasicLanesEntry&) = default;
};
using LanesEntry = BasicLanesEntry<std::string>;

// Entries by host, api, lane (`other` first), installation (none first); each
// entry lists its fields in the order of the grammar, each only when
// non-zero. The Meter writes the line only for an hour where one is non-zero.
template <class Text>
struct FORGEMETER_API BasicLanesLine {
  std::chrono::sys_seconds hour_ending{};
  HourNote note{};
  std::vector<BasicLanesEntry<Text>> entries{};
  friend bool operator==(const BasicLanesLine&, const BasicLanesLine&) = default;
};
using LanesLine = BasicLanesLine<std::string>;

// One of the four lines; std::visit, std::get<CountLine>() and the like read it.
template <class Text>
using BasicMeterLine =
    std::variant<BasicCountLine<Text>, BasicBudgetLine<Text>, BasicAnswersLine<Text>, BasicLanesLine<Text>>;
using MeterLine = BasicMeterLine<std::string>;

// The line, byte-exact, without a newline. Entries are written in the order
// given; the Meter sorts them by the rules at the line types before formatting. No value
// can break the line: a host not in display form has its unsafe bytes escaped
// (%XX), a lane byte outside [a-z0-9._-] is written as '?'. For the line to
// read back equal, hour_ending must be on the hour in years 0000-9999.
FORGEMETER_API std::string format_line(const MeterLine& line);

struct FORGEMETER_API LineScan {
  enum class Kind : std::uint8_t {
    none,       // no meter line in this text
    line,       // `line` holds it
    malformed,  // a meter line begins here but does not parse: `reason` says why
  };
  Kind kind = Kind::none;
  MeterLine line;
  std::string reason;
};

// Finds a meter line anywhere in one log line: after a timestamp or level
// prefix, or inside a JSON string (with `\u2014`, `\"` and `\\` escapes). A
// meter line begins with its opening words up to their colon: `forge HTTP:`,
// `forge rate limit:`, or `forge HTTP <word>:` (`answers`, `lanes`); text
// that begins so and does not parse (`forge HTTP: -5 requests`) is
// `malformed`. The line ends at the first unescaped '"'
// or at the end of the text (trailing spaces and CR/LF dropped).
// Round trip: scan_line(format_line(x)).line == x.
FORGEMETER_API LineScan scan_line(std::string_view log_line);

}  // namespace forgemeter
