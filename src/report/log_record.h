// log_record.h — the log record around a meter line: where its marker is,
// whether it starts the record's message (--anchored), and the records that
// hold only a piece of a line (a runtime split it).
//
// The prefixes a message is read after, as log pipelines write them (any
// sequence of them, outermost first):
//   `kubectl logs --prefix`   [pod/web-1/app] MESSAGE
//   CRI (kubelet's files)     2026-09-30T15:00:01.5Z stderr F MESSAGE
//   syslog (RFC 3164), journald short / short-iso / short-precise
//                             [<13>]Sep 30 15:00:01 host app[42]: MESSAGE
//                             2026-09-30T15:00:01+0000 host app[42]: MESSAGE
//   syslog (RFC 5424)         <13>1 2026-09-30T15:00:01Z host app 42 - - MESSAGE
//   a JSON record             {..."log"|"msg"|"message"|"MESSAGE":"MESSAGE...
// (Docker's json-file records are JSON records with "log".)
//
// Thread-safety: pure functions. Errors: none.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace forgemeter::report {

inline constexpr std::string_view kMarker = "forge ";  // every meter line's first word, in text and JSON alike

// The offset of the first marker at or after `from` that opens a meter line
// (its opening words, meter/parse.h), or npos.
std::size_t meter_marker(std::string_view line, std::size_t from = 0) noexcept;

// Whether the meter line whose marker is at `at` starts the line's message:
// nothing but the prefixes above comes before it.
bool starts_message(std::string_view line, std::size_t at) noexcept;

// A CRI record flagged P: its text is a piece of a longer line (the runtime
// split it, 16 KiB by containerd's default) continued in the next records.
bool cri_partial(std::string_view line) noexcept;

// A CRI record's parts: `2026-09-30T15:00:01.5Z stderr P TEXT`.
struct CriRecord {
  bool stderr_stream = false;  // else stdout
  bool partial = false;        // flagged P
  std::size_t flag = 0;        // the flag's offset
  std::size_t text = 0;        // where TEXT starts
};
// `line` as a CRI record, or nullopt when it is not one.
std::optional<CriRecord> cri_record(std::string_view line) noexcept;

// A Docker json-file record (`{"log":"…`): Docker ends the text of a whole
// line with "\n"; a record without it holds a piece of a longer line (Docker
// splits lines at 16 KiB).
inline constexpr std::size_t kDockerText = 8;  // where the record's text starts
inline bool docker_record(std::string_view line) noexcept { return line.starts_with(R"({"log":")"); }

// The JSON string the meter line at `at` sits in ends in one escaped newline
// (`…other=7\n"`, or `\r\n`): the offset of that escape's backslash, where
// the line's text ends; npos when it does not.
std::size_t escaped_line_end(std::string_view line, std::size_t at) noexcept;

}  // namespace forgemeter::report
