// `forgemeter report` as an operator uses it, as a process: by replica
// (checked against each file's own report, and its table), the filters (and
// what is said when they leave no hour), the exit code of
// --fail-on-exhausted, nested --source-field keys, `--html -` and an
// unwritable --html FILE, number errors.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "report_run.h"

using namespace fmtest;

namespace {

std::vector<std::string> with(std::vector<std::string> options, const std::vector<std::string>& files = kAll) {
  options.insert(options.end(), files.begin(), files.end());
  return options;
}

// A CSV (no quoted cells) as rows of column -> cell.
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> head;
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream cs(line);
    for (std::string c; std::getline(cs, c, ',');) cells.push_back(c);
    if (head.empty()) {
      head = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < head.size() && i < cells.size(); ++i) row[head[i]] = cells[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

using Hours = std::map<std::string, std::string>;  // hour_ending -> requests

// The hours and their requests in the CSV report of the three replicas with `options`.
Hours hours(std::vector<std::string> options) {
  options.insert(options.begin(), {"--format", "csv"});
  auto r = report(with(options));
  REQUIRE(r.exit_code == 0);
  Hours out;
  for (auto& row : csv_rows(r.out)) out[row["hour_ending"]] = row["requests"];
  return out;
}

}  // namespace

TEST_CASE("--by replica: each replica's rows are its own file's report, hour by hour and lane by lane") {
  auto all = report(with({"--by", "replica", "--format", "csv"}));
  REQUIRE(all.exit_code == 0);
  const auto rows = csv_rows(all.out);
  std::size_t matched = 0;
  for (const std::string& file : kAll) {
    CAPTURE(file);
    auto alone = report({"--format", "csv", file});
    REQUIRE(alone.exit_code == 0);
    for (auto& want : csv_rows(alone.out)) {
      auto got = std::find_if(rows.begin(), rows.end(), [&](const auto& r) {
        return r.at("source") == file && r.at("hour_ending") == want["hour_ending"];
      });
      REQUIRE(got != rows.end());
      CHECK(got->at("requests") == want["requests"]);
      CHECK(got->at("partial") == want["partial"]);
      for (const auto& [column, value] : want)
        if (column.starts_with("lane:")) CHECK(got->at(column) == value);
      ++matched;
    }
  }
  CHECK(matched == rows.size());  // no row that no file's own report has
  CHECK(matched == 5);            // a: 2 hours, b: 2, c: 1
}

TEST_CASE("--by replica over a generated log: a dotted --source-field path, each pod's known sums") {
  TempDir dir;
  const std::string log = dir.file("pods.json");
  std::string text;
  std::map<std::string, int> want;
  for (int hour = 10; hour < 13; ++hour)
    for (int pod = 0; pod < 3; ++pod) {
      const int n = 100 * (pod + 1) + hour;
      want[fmt::format("web-{}", pod)] += n;
      text += fmt::format(
          R"({{"kubernetes":{{"pod_name":"web-{}","ns":"x"}},"pod":"decoy","log":"forge HTTP: {} requests in the hour )"
          R"(ending 2026-10-01T{}:00Z \u2014 api.github.com rest installation 7 sweeper={}"}})"
          "\n",
          pod, n, hour, n);
    }
  write_file(log, text);
  auto r = report({"--by", "replica", "--format", "json", "--source-field", "kubernetes.pod_name", log});
  REQUIRE(r.exit_code == 0);
  std::map<std::string, int> got;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    const auto s = line.find(R"("source":")") + 10, n = line.find(R"("requests":)") + 11;
    got[line.substr(s, line.find('"', s) - s)] += std::stoi(line.substr(n));
  }
  CHECK(got == want);
  // A top-level key that holds the dots itself wins over the path.
  write_file(log, R"({"kubernetes.pod_name":"flat","kubernetes":{"pod_name":"nested"},"log":"forge HTTP: 5 requests )"
                  R"(in the hour ending 2026-10-01T10:00Z \u2014 api.github.com rest sweeper=5"})"
                  "\n");
  r = report({"--by", "replica", "--format", "csv", "--source-field", "kubernetes.pod_name", log});
  CHECK(r.out.find("2026-10-01T10:00Z,flat,5,false,5") != std::string::npos);
}

TEST_CASE("--since and --until: an hour is kept when it overlaps [since, until)") {
  CHECK(hours({}) == Hours{{"2026-09-30T15:00Z", "1350"}, {"2026-09-30T16:00Z", "410"}});
  CHECK(hours({"--since", "2026-09-30T15:00Z"}) == Hours{{"2026-09-30T16:00Z", "410"}});
  CHECK(hours({"--since", "2026-09-30T14:59:59Z"}) ==
        Hours{{"2026-09-30T15:00Z", "1350"}, {"2026-09-30T16:00Z", "410"}});
  CHECK(hours({"--until", "2026-09-30T15:00Z"}) == Hours{{"2026-09-30T15:00Z", "1350"}});
  CHECK(hours({"--until", "2026-09-30T14:00:01Z"}) == Hours{{"2026-09-30T15:00Z", "1350"}});
  CHECK(hours({"--until", "2026-09-30T14:00Z"}).empty());
  // Relative bounds count back from --now (default: the clock, long after these logs).
  CHECK(hours({"--since", "-1h", "--now", "2026-09-30T16:00Z"}) == Hours{{"2026-09-30T16:00Z", "410"}});
  CHECK(hours({"--since", "-2h", "--until", "-1h", "--now", "2026-09-30T16:00Z"}) ==
        Hours{{"2026-09-30T15:00Z", "1350"}});
  CHECK(hours({"--since", "-1h", "--now", "2026-09-30T17:00Z"}).empty());
  CHECK(hours({"--since", "2026-09-30"}).size() == 2);
  auto bad = report(with({"--since", "yesterday"}));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--since 'yesterday' is no instant") != std::string::npos);
  CHECK(bad.out.empty());
}

TEST_CASE("--lane, --installation, --host: only those entries are summed; kinds combine") {
  CHECK(hours({"--lane", "other"}) == Hours{{"2026-09-30T15:00Z", "100"}, {"2026-09-30T16:00Z", "60"}});
  CHECK(hours({"--installation", "101"}) == Hours{{"2026-09-30T15:00Z", "1250"}, {"2026-09-30T16:00Z", "350"}});
  CHECK(hours({"--installation", "202"}) == Hours{{"2026-09-30T16:00Z", "10"}});
  CHECK(hours({"--installation", "202", "--installation", "0"}) ==
        Hours{{"2026-09-30T15:00Z", "100"}, {"2026-09-30T16:00Z", "60"}});
  CHECK(hours({"--host", "UPLOADS.github.com"}) == Hours{{"2026-09-30T16:00Z", "50"}});
  CHECK(hours({"--lane", "other", "--installation", "0"}) ==
        Hours{{"2026-09-30T15:00Z", "100"}, {"2026-09-30T16:00Z", "50"}});
  // The answers lines name no lane: with --lane they are left out, with --host they are kept.
  auto json = report(with({"--format", "json", "--lane", "other"}));
  CHECK(json.out.find(R"("answers":{})") != std::string::npos);
  CHECK(json.out.find(R"("2xx")") == std::string::npos);
  json = report(with({"--format", "json", "--host", "api.github.com"}));
  CHECK(json.out.find(R"("answers":{"2xx":1180,"304":40,"limited":70})") != std::string::npos);
  // A lane no line can name is an error, not an empty report.
  auto bad = report(with({"--lane", "Sweeper"}));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--lane 'Sweeper': lane name has 'S' at offset 0") != std::string::npos);
}

TEST_CASE("--fail-on-exhausted: exit 3 when a reported hour ran out, 0 without the flag or the hour") {
  auto r = report(with({"--fail-on-exhausted"}));
  CHECK(r.exit_code == 3);
  CHECK(r.out.find("EXHAUSTED") != std::string::npos);  // the report is still written
  CHECK(report(with({})).exit_code == 0);
  CHECK(report(with({"--fail-on-exhausted", "--since", "2026-09-30T15:00Z"})).exit_code == 0);
  CHECK(report(with({"--fail-on-exhausted", "--installation", "202"})).exit_code == 0);
}

TEST_CASE("--html - and --format html write the page to stdout; no file named '-'") {
  TempDir dir;
  for (const auto& options : {std::vector<std::string>{"--html", "-"}, std::vector<std::string>{"--format", "html"}}) {
    auto r = report(with(options));
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.starts_with("<!DOCTYPE html>"));
    CHECK(r.out.find("<h2>Requests by replica</h2>") != std::string::npos);
    CHECK(r.out.find("HOUR ENDING") == std::string::npos);  // the page only, no table
  }
  CHECK(access("-", F_OK) != 0);
  auto both = report(with({"--html", "-", "--format", "csv"}));
  CHECK(both.exit_code == 2);
  CHECK(both.err.find("both write to stdout") != std::string::npos);
}

TEST_CASE("number errors say the accepted range in our words") {
  auto r = report(with({"--budget", "0"}));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--budget: '0' is not a budget: give a whole number from 1 to 18446744073709551615") !=
        std::string::npos);
  CHECK(r.err.size() < 200);  // not CLI11's range of a double
  r = report(with({"--threads", "5000"}));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("give a whole number from 0 to 1024") != std::string::npos);
  r = report(with({"--installation", "-3"}));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("'-3' is not an installation id") != std::string::npos);
}

TEST_CASE("--since not before --until (both instants, or both relative): a usage error, nothing read") {
  for (const auto& [since, until] : std::vector<std::pair<std::string, std::string>>{
           {"2026-09-30T16:00Z", "2026-09-30T15:00Z"},
           {"2026-09-30T15:00Z", "2026-09-30T15:00Z"},
           {"2026-09-30T17:00+02:00", "2026-09-30T15:00:00.000Z"},  // the same instant, written two ways
           {"-1h", "-2h"}}) {
    CAPTURE(since);
    auto r = report(with({"--since", since, "--until", until}, {"/nonexistent/forgemeter.log"}));
    CHECK(r.exit_code == 2);  // not 1: the range was refused before the file was opened
    CHECK(r.err.rfind(
              fmt::format("forgemeter: --since {} is not before --until {}: no hour can be reported", since, until),
              0) == 0);
    CHECK(r.out.empty());
  }
}

TEST_CASE("--since and --until as logs and ISO 8601 write them: a fraction, an offset instead of Z") {
  CHECK(hours({"--since", "2026-09-30T17:00+02:00"}) == Hours{{"2026-09-30T16:00Z", "410"}});
  CHECK(hours({"--since", "2026-09-30T10:00:00-05:00"}) == Hours{{"2026-09-30T16:00Z", "410"}});
  CHECK(hours({"--until", "2026-09-30T15:00:00.000Z"}) == Hours{{"2026-09-30T15:00Z", "1350"}});
  // Half a second into the hour ending 16:00Z: that hour overlaps [.., until).
  CHECK(hours({"--until", "2026-09-30T15:00:00.5Z"}) ==
        Hours{{"2026-09-30T15:00Z", "1350"}, {"2026-09-30T16:00Z", "410"}});
  auto bad = report(with({"--until", "2026-09-30T15:00+0200"}));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("2026-09-30T15:00:00.5Z, 2026-09-30T17:00+02:00") != std::string::npos);  // the forms taken
}

TEST_CASE("filters that leave no hour: said on stderr with the input's hours, exit 0; machine formats stay parseable") {
  const std::string a = fixture("replica-a.log");  // hours ending 15:00Z and 16:00Z, no malformed line
  auto r = report({"--since", "2026-09-30T16:00Z", a});
  CHECK(r.exit_code == 0);  // an empty window is no failure for cron
  CHECK(r.out.empty());     // not "no meter lines found": the input has them
  CHECK(r.err ==
        "forgemeter: no hour matches the filters (--since 2026-09-30T16:00Z): the input's hours end "
        "2026-09-30T15:00Z-2026-09-30T16:00Z\n");
  // The entry filters too (the lines are dropped before they are summed), named as given.
  r = report({"--lane", "board-sync", "--installation", "202", a});
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "forgemeter: no hour matches the filters (--lane board-sync --installation 202): the input's hours end "
        "2026-09-30T15:00Z-2026-09-30T16:00Z\n");
  r = report({"--by", "replica", "--until", "2026-09-30T13:00Z", "--fail-on-exhausted", a});
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  CHECK(r.err.find("no hour matches the filters (--until 2026-09-30T13:00Z)") != std::string::npos);
  // CSV keeps its header, JSON lines have no line: what a parser of each expects.
  r = report({"--format", "csv", "--since", "2026-09-30T16:00Z", a});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "hour_ending,requests,replicas,partial,lowest_remaining,lowest_at,limit,over_limit,exhausted_at\n");
  CHECK(r.err.find("no hour matches the filters") != std::string::npos);
  r = report({"--format", "json", "--host", "example.com", a});
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  CHECK(r.err.find("no hour matches the filters (--host example.com)") != std::string::npos);
  // One hour in the input: said so.
  r = report({"--since", "2026-09-30T16:00Z", fixture("replica-c.log.gz")});
  CHECK(r.err.find("the input's only hour ends 2026-09-30T16:00Z\n") != std::string::npos);
  // Input with no meter line at all keeps its words, filters or not.
  for (const auto& options : {std::vector<std::string>{}, std::vector<std::string>{"--since", "-1h"}}) {
    r = report(options, {.stdin_data = "2026-09-30T15:00:00Z INFO nothing metered here\n"});
    CHECK(r.exit_code == 0);
    CHECK(r.out == "no meter lines found\n");
    CHECK(r.err.empty());
  }
}

TEST_CASE("--html FILE that cannot be written fails before the scan; an existing file is left as it was") {
  TempDir dir;
  auto r = report(with({"--html", "/nonexistent/dir/x.html"}));
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());  // no table first
  CHECK(r.err.rfind("forgemeter: cannot write '/nonexistent/dir/x.html': No such file or directory", 0) == 0);
  r = report(with({"--html", dir.path()}));  // a directory
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err.find("cannot write '" + dir.path() + "': Is a directory") != std::string::npos);
  // Checked, not truncated: a scan that fails leaves an old page whole, and creates no new one.
  const std::string old_page = dir.file("old.html"), new_page = dir.file("new.html");
  const std::string old_text = "<!DOCTYPE html>\n<title>forgemeter fleet report</title> the old page";
  write_file(old_page, old_text);
  for (const std::string& page : {old_page, new_page}) {
    r = report({"--html", page, "/nonexistent/forgemeter.log"});
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("cannot open '/nonexistent/forgemeter.log'") != std::string::npos);
  }
  CHECK(read_file(old_page) == old_text);
  CHECK(access(new_page.c_str(), F_OK) != 0);
  // A path that can be written is written, over the old page.
  r = report(with({"--html", old_page}));
  CHECK(r.exit_code == 0);
  CHECK(read_file(old_page).starts_with("<!DOCTYPE html>"));
}

TEST_CASE("an empty --html or --source-field is a usage error") {
  auto r = report(with({"--html", ""}));
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("forgemeter: --html needs a file name ('-': stdout); see 'forgemeter report --help'", 0) == 0);
  CHECK(r.out.empty());
  r = report(with({"--source-field", ""}));
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("forgemeter: --source-field needs a key name; see 'forgemeter report --help'", 0) == 0);
  CHECK(r.out.empty());
}

TEST_CASE(
    "--by replica, the table: each replica's values per hour and in total, counts right-aligned in every column") {
  TempDir dir;
  const std::string log = dir.file("pods.json");
  write_file(log,
             R"({"pod":"web-1","log":"forge HTTP: 1205 requests in the hour ending 2026-10-01T10:00Z \u2014 )"
             R"(api.github.com rest installation 7 other=1200, api.github.com rest installation 7 sweeper=5"})"
             "\n"
             R"({"pod":"web-22","log":"forge HTTP: 40 requests in the hour ending 2026-10-01T10:00Z \u2014 )"
             R"(api.github.com rest installation 7 sweeper=40"})"
             "\n"
             R"({"pod":"web-1","log":"forge HTTP: 7 requests in the hour ending 2026-10-01T11:00Z (until 10:20:00Z, )"
             R"(stopping) \u2014 api.github.com rest installation 7 sweeper=7"})"
             "\n");
  auto r = report({"--by", "replica", "--source-field", "pod", log});
  REQUIRE(r.exit_code == 0);
  // The totals' last column is a lane: its counts end under its header's end
  // like every other count, not at its start.
  CHECK(r.out ==
        "HOUR ENDING        REPLICA  REQUESTS  other  sweeper  NOTES\n"
        "2026-10-01T10:00Z    web-1      1205   1200        5\n"
        "2026-10-01T10:00Z   web-22        40      -       40\n"
        "2026-10-01T11:00Z    web-1         7      -        7  partial\n"
        "\n"
        "by replica, all hours\n"
        "REPLICA  HOURS  REQUESTS  other  sweeper\n"
        "web-1        2      1212   1200       12\n"
        "web-22       1        40      -       40\n");
  CHECK(r.err.empty());
}
