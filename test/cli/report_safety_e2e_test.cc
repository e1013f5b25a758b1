// `forgemeter report` never destroys, drops or miscounts without a word, as
// a process: an output that is an input (or a file no report wrote) is
// refused before anything is read or written; Docker json-file and CRI
// files are read; interleaved writers and a junk prefix over the line limit
// lose only what is said; --strict; relative windows from --now; years out
// of range; --anchored; CSV cells a spreadsheet would run.
#include <doctest/doctest.h>

#include <unistd.h>

#include <fmt/format.h>

#include "report_run.h"

using namespace fmtest;

namespace {

std::string count_line(int n, const std::string& hour = "2026-09-30T15:00Z", const std::string& lane = "other") {
  return fmt::format("forge HTTP: {} requests in the hour ending {} \u2014 api.github.com rest {}={}", n, hour, lane,
                     n);
}

const std::string kHeader =
    "hour_ending,requests,replicas,partial,lowest_remaining,lowest_at,limit,over_limit,"
    "exhausted_at,lane:other\n";

std::string csv_row(int n) { return fmt::format("2026-09-30T15:00Z,{},1,false,,,,false,,{}\n", n, n); }

}  // namespace

TEST_CASE("an output that is an input, by device and inode, is refused before anything is read or written") {
  TempDir dir;
  const std::string log = dir.file("web-1.log"), link = dir.file("link.log"), hard = dir.file("hard.log");
  const std::string text = count_line(7) + "\n";
  write_file(log, text);
  REQUIRE(symlink(log.c_str(), link.c_str()) == 0);
  REQUIRE(::link(log.c_str(), hard.c_str()) == 0);
  for (const std::string& page : {log, link, hard}) {
    CAPTURE(page);
    auto r = report({"--html", page, "--force", log});  // --force does not lift it
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("is the input '" + log + "' (the same file)") != std::string::npos);
    CHECK(read_file(log) == text);
  }
  auto r = report({"--html", log}, {.stdin_data = ""});  // stdin: the file is not opened as stdin here
  CHECK(r.exit_code == 2);                               // but it is no page: see below
  // stdin redirected from the page, stdout appending to the log.
  r = run_process({"/bin/sh", "-c", fmt::format("'{}' report --html '{}' < '{}'", forgemeter_bin(), log, log)});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("is the input stdin (the same file)") != std::string::npos);
  r = run_process({"/bin/sh", "-c", fmt::format("'{}' report '{}' >> '{}'", forgemeter_bin(), log, log)});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("stdout is the input '" + log + "'") != std::string::npos);
  CHECK(read_file(log) == text);
}

TEST_CASE(
    "--html over an existing file: a report's page or an empty file is written over; anything else needs --force") {
  TempDir dir;
  const std::string log = dir.file("web-2.log"), first = dir.file("web-1.log"), page = dir.file("report.html");
  write_file(log, count_line(7) + "\n");
  write_file(first, count_line(5) + "\n");
  // `report --html web-*.log`: the glob's first log became FILE.
  auto r = report({"--html", first, log});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("--html " + first + ": the file exists and is not a page a report wrote") != std::string::npos);
  CHECK(r.err.find("give --force") != std::string::npos);
  CHECK(read_file(first) == count_line(5) + "\n");
  // A page a report wrote is written over, again and again; so is an empty file (mktemp).
  write_file(page, "");
  for (int i = 0; i < 2; ++i) {
    r = report({"--html", page, log});
    CHECK(r.exit_code == 0);
    CHECK(read_file(page).starts_with("<!DOCTYPE html>"));
  }
  // --force: the user says the file may go.
  r = report({"--html", first, "--force", log});
  CHECK(r.exit_code == 0);
  CHECK(read_file(first).starts_with("<!DOCTYPE html>"));
}

TEST_CASE("Docker json-file and CRI (kubelet) log files are read; a CRI line split in P records is joined") {
  const std::string line = count_line(7);
  auto r = report({"--format", "csv"}, {.stdin_data = R"({"log":")" + line +
                                                      R"(\n","stream":"stderr","time":"2026-09-30T15:00:01.5Z"})"
                                                      "\n"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == kHeader + csv_row(7));
  CHECK(r.err.empty());
  r = report({"--format", "csv", "--strict"}, {.stdin_data = "2026-09-30T15:00:01.5Z stderr F " + line +
                                                             "\n2026-09-30T15:00:02.5Z stdout F " + line + "\n"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == kHeader + csv_row(14));
  // A line the runtime split is joined at its F; pieces whose F never came are said.
  r = report({"--format", "csv", "--strict"},
             {.stdin_data = "2026-09-30T15:00:01.5Z stderr P " + line.substr(0, 30) +
                            "\n2026-09-30T15:00:01.5Z stdout F app\n2026-09-30T15:00:01.5Z stderr F " +
                            line.substr(30) + "\n"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == kHeader + csv_row(7));
  r = report({"--format", "csv"}, {.stdin_data = "x\n2026-09-30T15:00:01.5Z stderr P " + line + "\n"});
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("(stdin):2: a line split in CRI records flagged P whose F record never came") != std::string::npos);
}

TEST_CASE("interleaved writers and a junk prefix over 16 MiB: resynchronised on the next marker; the loss said") {
  TempDir dir;
  const std::string log = dir.file("web.log");
  const std::string cut = count_line(9).substr(0, 60);
  write_file(log,
             std::string(17 << 20, 'j') + count_line(7) + "\n" + cut + count_line(5) + "\n" + count_line(3) + "\n");
  for (const char* threads : {"1", "2"}) {
    CAPTURE(threads);
    auto r = report({"--format", "csv", "--threads", threads, "--chunk-bytes", "4194304", log});
    CHECK(r.exit_code == 0);
    CHECK(r.out == kHeader + csv_row(15));
    CHECK(r.err.find("skipped 1 meter line: 0 malformed, 1 dropped") != std::string::npos);
    CHECK(r.err.find(log + ":2: ") != std::string::npos);
    CHECK(r.err.find("cut by another line at byte 61") != std::string::npos);
    r = report({"--format", "csv", "--threads", threads, "--strict", log});
    CHECK(r.exit_code == 1);
    CHECK(r.out == kHeader + csv_row(15));  // still written
    CHECK(r.err.find("forgemeter: --strict: 1 meter line was skipped or dropped") != std::string::npos);
  }
  // A meter line over the limit itself is dropped whole, and said.
  write_file(log, count_line(1).substr(0, 70) + std::string(17 << 20, 'x') + "\n" + count_line(7) + "\n");
  auto r = report({"--format", "csv", log});
  CHECK(r.out == kHeader + csv_row(7));
  CHECK(r.err.find(log + ":1: a meter line over 16 MiB, dropped") != std::string::npos);
}

TEST_CASE("--strict: exit 1 when no hour is left to report, filtered out or none read") {
  const std::string log = count_line(7) + "\n";
  auto r = report({"--strict", "--since", "2026-09-30T16:00Z"}, {.stdin_data = log});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("no hour matches the filters") != std::string::npos);
  CHECK(r.err.find("forgemeter: --strict: no hour to report") != std::string::npos);
  r = report({"--strict"}, {.stdin_data = "nothing metered\n"});
  CHECK(r.exit_code == 1);
  r = report({"--strict", "--format", "csv"}, {.stdin_data = log});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  r = report({"--strict", "--fail-on-exhausted"}, {.stdin_data = "nothing metered\n"});
  CHECK(r.exit_code == 1);  // incomplete wins over 3, as a lost input does
}

TEST_CASE("--since -1h counts back from --now, not from the input's last hour; the clock by default") {
  const std::string log = count_line(7) + "\n";  // a replica that stopped logging at 15:00Z
  auto r = report({"--format", "csv", "--since", "-1h", "--now", "2026-09-30T15:00Z"}, {.stdin_data = log});
  CHECK(r.out == kHeader + csv_row(7));
  r = report({"--format", "csv", "--since", "-1h", "--now", "2026-09-30T18:00Z"}, {.stdin_data = log});
  CHECK(r.out == kHeader.substr(0, kHeader.find(",lane")) + "\n");
  r = report({"--format", "csv", "--since", "-1h"}, {.stdin_data = log});  // the clock: years later
  CHECK(r.out == kHeader.substr(0, kHeader.find(",lane")) + "\n");
  r = report({"--help"});
  CHECK(r.out.find("a duration before --now") != std::string::npos);
}

TEST_CASE("a line dated outside 1970-2261 is malformed; --since and --until never wrap") {
  const std::string log = count_line(7) + "\n" + count_line(5, "2300-09-30T15:00Z") + "\n";
  auto r = report({"--format", "csv", "--since", "2026-09-30T14:30Z"}, {.stdin_data = log});
  CHECK(r.exit_code == 0);
  CHECK(r.out == kHeader + csv_row(7));
  CHECK(r.err.find("(stdin):2: the hour ending 2300-09-30T15:00Z is outside the years 1970 to 2261") !=
        std::string::npos);
  r = report({"--format", "csv", "--since", "-876000h", "--now", "1700-01-01T00:00Z"}, {.stdin_data = log});
  CHECK(r.exit_code == 0);
  CHECK(r.out == kHeader + csv_row(7));
}

TEST_CASE("--anchored: only a meter line that starts the message counts; the default finds it anywhere") {
  const std::string log = "Sep 30 15:00:01 web-1 app[42]: " + count_line(7) + "\n" +  //
                          "[pod/web-1/app] 2026-09-30T15:00:01.5Z stderr F " + count_line(5) + "\n" + R"({"log":")" +
                          count_line(3) + R"(\n","stream":"stderr"})" + "\n" +
                          "2026-09-30T15:00:02Z INFO a user wrote: " + count_line(100) + "\n";
  auto r = report({"--format", "csv", "--anchored"}, {.stdin_data = log});
  CHECK(r.exit_code == 0);
  CHECK(r.out == kHeader + csv_row(15));
  r = report({"--format", "csv"}, {.stdin_data = log});
  CHECK(r.out == kHeader + csv_row(115));
}

TEST_CASE("CSV: control bytes escaped as the table writes them; formula cells neutralised with a quote") {
  std::string log;
  for (const char* pod : {"=HYPERLINK(\\\"x\\\")", "+1", "-2", "@SUM(A1)", "\\tweb", "web\\u001b[2J\\u0007-1"})
    log += fmt::format(R"({{"pod":"{}","msg":"{}"}})", pod, count_line(1)) + "\n";
  auto r = report({"--format", "csv", "--by", "replica", "--source-field", "pod"}, {.stdin_data = log});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("\n2026-09-30T15:00Z,\"'=HYPERLINK(\"\"x\"\")\",1,") != std::string::npos);
  CHECK(r.out.find("\n2026-09-30T15:00Z,'+1,1,") != std::string::npos);
  CHECK(r.out.find("\n2026-09-30T15:00Z,'-2,1,") != std::string::npos);
  CHECK(r.out.find("\n2026-09-30T15:00Z,'@SUM(A1),1,") != std::string::npos);
  CHECK(r.out.find("\n2026-09-30T15:00Z,'\\x09web,1,") != std::string::npos);
  CHECK(r.out.find("\n2026-09-30T15:00Z,web\\x1b[2J\\x07-1,1,") != std::string::npos);
  for (char c : r.out) CHECK((static_cast<unsigned char>(c) >= 0x20 || c == '\n'));
}

TEST_CASE("stdin redirected from a file also named is that file: read once, with a warning") {
  TempDir dir;
  const std::string log = dir.file("web-1.log");
  write_file(log, count_line(7) + "\n");
  for (const std::string& inputs : {fmt::format("'{}' -", log), fmt::format("- '{}'", log)}) {
    CAPTURE(inputs);
    auto r = run_process(
        {"/bin/sh", "-c", fmt::format("'{}' report --format csv {} < '{}'", forgemeter_bin(), inputs, log)});
    CHECK(r.exit_code == 0);
    CHECK(r.out == kHeader + csv_row(7));  // not 14 requests of 2 replicas
    CHECK(r.err.find("is the same file as") != std::string::npos);
  }
  // A pipe is no file: read as it comes.
  auto r = report({"--format", "csv", log, "-"}, {.stdin_data = count_line(5) + "\n"});
  CHECK(r.out ==
        "hour_ending,requests,replicas,partial,lowest_remaining,lowest_at,limit,over_limit,exhausted_at,"
        "lane:other\n2026-09-30T15:00Z,12,2,false,,,,false,,12\n");
}

TEST_CASE("a count or budget line with the opening words that does not parse is malformed, said, and fails --strict") {
  const std::string rest = " in the hour ending 2026-09-30T15:00Z \u2014 api.github.com rest other=5";
  for (const std::string& bad :
       {"forge HTTP: -5 requests" + rest, "forge HTTP: 0x10 requests" + rest, "forge HTTP: +7 requests" + rest,
        "forge HTTP: 5x requests" + rest, "forge HTTP: 5 request" + rest, "forge HTTP:  5 requests" + rest,
        "forge HTTP: 5  requests" + rest,
        "forge rate limit: lowest  remaining" + rest.substr(0, rest.find(" api")) +
            " api.github.com rest installation 1: 0 at 14:00:00Z"}) {
    CAPTURE(bad);
    const std::string log = count_line(7) + "\n" + "web-1 app: " + bad + "\n";
    auto r = report({"--format", "csv"}, {.stdin_data = log});
    CHECK(r.exit_code == 0);
    CHECK(r.out == kHeader + csv_row(7));
    CHECK(r.err.find("skipped 1 malformed meter line") != std::string::npos);
    CHECK(r.err.find("(stdin):2: ") != std::string::npos);
    r = report({"--strict", "--format", "csv"}, {.stdin_data = log});
    CHECK(r.exit_code == 1);
  }
  // Prose that names the forge is no meter line.
  auto r = report({"--strict", "--format", "csv"}, {.stdin_data = count_line(7) + "\nforge HTTP client started\n"});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
}

TEST_CASE("a log's last line without its newline is dropped and said, never counted cut; --strict fails") {
  // The hour's answers line, being written: `2xx=12` read so far as `2xx=1`.
  const std::string answers =
      "forge HTTP answers: in the hour ending 2026-09-30T15:00Z \u2014 api.github.com rest 2xx=1";
  const std::string text = count_line(12) + "\n" + answers;
  TempDir dir;
  const std::string log = dir.file("web-1.log");
  write_file(log, text);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--threads", "1", log}, std::vector<std::string>{"--threads", "2", log},
        std::vector<std::string>{"-"}}) {
    CAPTURE(args.back());
    std::vector<std::string> json = {"--format", "json"};
    json.insert(json.end(), args.begin(), args.end());
    auto r = report(json, {.stdin_data = text});
    CHECK(r.exit_code == 0);
    CHECK(r.out.find(R"("requests":12)") != std::string::npos);
    CHECK(r.out.find(R"("2xx")") == std::string::npos);  // not a class of 1 beside N = 12
    CHECK(r.err.find("skipped 1 meter line: 0 malformed, 1 dropped") != std::string::npos);
    CHECK(r.err.find(":2: the input's last line has no newline") != std::string::npos);
    json.insert(json.begin(), "--strict");
    CHECK(report(json, {.stdin_data = text}).exit_code == 1);
  }
  // Ended, it counts; a last line without a meter line is nothing to say.
  auto r = report({"--strict", "--format", "json"}, {.stdin_data = text + "\n" + "shutting down"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(R"("2xx":1)") != std::string::npos);
  CHECK(r.err.empty());
}

TEST_CASE("--since counted back past 1677 stops there: every hour kept, no usage error") {
  const std::string log = count_line(7) + "\n";
  for (const char* since : {"-4000000h", "-999999999999999999h", "-3000000h0m1s"}) {
    CAPTURE(since);
    auto r = report({"--format", "csv", "--since", since}, {.stdin_data = log});
    CHECK(r.exit_code == 0);
    CHECK(r.out == kHeader + csv_row(7));
  }
  auto r = report({"--format", "csv", "--until", "-4000000h"}, {.stdin_data = log});  // before 1677: no hour
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("no hour matches the filters") != std::string::npos);
  r = report({"--since", "-4000000h", "--until", "-5000000h"}, {.stdin_data = log});
  CHECK(r.exit_code == 2);  // not before --until, whatever the input
}
