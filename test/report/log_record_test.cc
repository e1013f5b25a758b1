// The log record around a meter line (src/report/log_record.h): where the
// marker is, whether it starts the message after the prefixes log pipelines
// write (--anchored), and the records that hold a piece of a split line.
#include <doctest/doctest.h>

#include <string>

#include "report/log_record.h"

using namespace forgemeter::report;

namespace {

const std::string kLine =
    "forge HTTP: 7 requests in the hour ending 2026-09-30T15:00Z \xe2\x80\x94 api.github.com rest other=7";

// Whether the meter line after `prefix` starts the message.
bool anchored(const std::string& prefix, const std::string& suffix = "") {
  const std::string line = prefix + kLine + suffix;
  return starts_message(line, meter_marker(line));
}

}  // namespace

TEST_CASE("meter_marker: the first marker that opens a meter line") {
  CHECK(meter_marker(kLine) == 0);
  CHECK(meter_marker("the forge is hot; " + kLine) == 18);
  CHECK(meter_marker("forge nothing here") == std::string::npos);
  CHECK(meter_marker(kLine + " " + kLine, 1) == kLine.size() + 1);
}

TEST_CASE("--anchored: the message starts with the marker after the prefixes users have") {
  CHECK(anchored(""));
  CHECK(anchored("Sep 30 15:00:01 web-1 app[42]: "));               // syslog file, journald short
  CHECK(anchored("Sep  3 15:00:01 web-1 app: "));                   // a one-digit day
  CHECK(anchored("<13>Sep 30 15:00:01 web-1 app[42]: "));           // RFC 3164 on the wire
  CHECK(anchored("Sep 30 15:00:01.123456 web-1 app[42]: "));        // journald short-precise
  CHECK(anchored("2026-09-30T15:00:01+0000 web-1 app[42]: "));      // journald short-iso
  CHECK(anchored("<13>1 2026-09-30T15:00:01Z web-1 app 42 - - "));  // RFC 5424
  CHECK(anchored(R"(<13>1 2026-09-30T15:00:01Z web-1 app 42 ID7 [x@1 a="b]c" d="e"][y@2] )"));
  CHECK(anchored("2026-09-30T15:00:01.5Z stderr F "));  // CRI
  CHECK(anchored("[pod/web-1/app] "));                  // kubectl logs --prefix
  CHECK(anchored("[pod/web-1/app] 2026-09-30T15:00:01.5Z stdout F "));
  CHECK(anchored(R"({"log":")", R"(\n","stream":"stderr","time":"2026-09-30T15:00:01.5Z"})"));  // Docker
  CHECK(anchored(R"({"ts":"2026-09-30T15:00:01Z","level":"info","msg":")", R"("})"));
  CHECK(anchored(R"({"message": ")", R"("})"));
  CHECK(anchored(R"([pod/web-1/app] {"MESSAGE":")", R"("})"));  // journald's JSON through kubectl
}

TEST_CASE("--anchored: a meter line quoted inside other text does not start the message") {
  CHECK(!anchored("user said: "));
  CHECK(!anchored("2026-09-30T15:00:01Z INFO "));  // an application's own logger prefix
  CHECK(!anchored("Sep 30 15:00:01 web-1 app[42]: quoting "));
  CHECK(!anchored(R"({"comment":")", R"("})"));
  CHECK(!anchored(R"({"msg":"see )", R"("})"));
  CHECK(!anchored("2026-09-30T15:00:01.5Z stderr X "));
  CHECK(!anchored("[pod with spaces] "));
  CHECK(!anchored("<13>1 2026-09-30T15:00:01Z web-1 app 42 - [unterminated "));
}

TEST_CASE("cri_partial: a CRI record flagged P holds a piece of a line") {
  CHECK(cri_partial("2026-09-30T15:00:01.5Z stderr P " + kLine));
  CHECK(cri_partial("2026-09-30T15:00:01.123456789+02:00 stdout P x"));
  CHECK(!cri_partial("2026-09-30T15:00:01.5Z stderr F " + kLine));
  CHECK(!cri_partial(kLine));
  CHECK(!cri_partial("2026 stderr P x"));
}

TEST_CASE("escaped_line_end: a JSON string ending in one escaped newline ends the line there") {
  const std::string docker = R"({"log":")" + kLine + R"(\n","stream":"stderr"})";
  CHECK(docker_record(docker));
  CHECK(escaped_line_end(docker, 8) == 8 + kLine.size());
  const std::string crlf = R"({"log":")" + kLine + R"(\r\n"})";
  CHECK(escaped_line_end(crlf, 8) == 8 + kLine.size());
  CHECK(escaped_line_end(R"({"log":")" + kLine + R"("})", 8) == std::string::npos);         // no newline
  CHECK(escaped_line_end(R"({"log":")" + kLine + R"(\\n"})", 8) == std::string::npos);      // a backslash, then n
  CHECK(escaped_line_end(R"({"log":")" + kLine + R"(\n\n"})", 8) == 8 + kLine.size() + 2);  // one newline only
  CHECK(escaped_line_end(R"({"log":")" + kLine + R"(\n)", 8) == std::string::npos);         // no closing quote
  CHECK(!docker_record(R"({"msg":")" + kLine + R"("})"));
}
