// forgemeter-demo as a process, checked against what it does not compute
// itself: the forge's own counts (--forge-counts, read at the server) and the
// replicas' logs (--logs) summed here by a parser of this file's own. Their
// sums must equal each other, `forgemeter report` over the logs, and the
// table the demo printed; a lost log must make the demo itself say DIFFER and
// exit 1. Also: each hour is printed while the demo still runs, the first
// hour is whole, the elected hour costs about 1/R, and a burst of searches is
// reported as limited, not as the hour's budget running out.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/process.h"
#include "support/temp_files.h"

using namespace fmtest;

namespace {

// hour ending -> lane -> requests
using Sums = std::map<std::string, std::map<std::string, std::uint64_t>>;

// The count lines of logs, summed by a reader of the grep contract of its
// own (docs/lines.md), not the library's parser:
//   forge HTTP: <N> requests in the hour ending <hour>[ (<note>)] — <host> <api>[ installation <id>] <lane>=<n>, …
Sums sum_count_lines(const std::vector<std::string>& files, std::string& notes) {
  Sums sums;
  const std::string head = "forge HTTP: ", mid = " requests in the hour ending ", dash = " \xe2\x80\x94 ";
  for (const auto& file : files) {
    std::istringstream in(read_file(file));
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(head, 0) != 0 || line.find(mid) == std::string::npos) continue;
      const std::string hour = line.substr(line.find(mid) + mid.size(), 17);
      const std::size_t body = line.find(dash);
      REQUIRE(body != std::string::npos);
      if (line.find('(', line.find(mid)) < body) notes += line + "\n";
      std::uint64_t total = 0;
      std::istringstream entries(line.substr(body + dash.size()));
      for (std::string entry; std::getline(entries, entry, ',');) {
        const std::string lane_n = entry.substr(entry.rfind(' ') + 1);
        const std::uint64_t n = std::stoull(lane_n.substr(lane_n.find('=') + 1));
        sums[hour][lane_n.substr(0, lane_n.find('='))] += n;
        total += n;
      }
      CHECK(total == std::stoull(line.substr(head.size())));  // the line's N is its entries' sum
    }
  }
  return sums;
}

// --forge-counts: {"periods":[{"from","until","lanes":{…},"not_modified":{…}},…]}, one hour each in a
// 2-hour run: `field` ("lanes": requests, "not_modified": of them answered 304) by period's end and lane.
Sums forge_sums(const std::string& path, const char* field = "lanes") {
  Sums sums;
  const auto counts = nlohmann::json::parse(read_file(path));
  for (const auto& p : counts.at("periods"))
    for (const auto& [lane, n] : p.at(field).items())
      sums[p.at("until").get<std::string>()][lane] = n.get<std::uint64_t>();
  return sums;
}

// `forgemeter report --format json`: one object per hour.
Sums report_sums(const std::string& json_lines) {
  Sums sums;
  std::istringstream in(json_lines);
  for (std::string line; std::getline(in, line);) {
    const auto hour = nlohmann::json::parse(line);
    for (const auto& [lane, n] : hour.at("lanes").items())
      sums[hour.at("hour_ending").get<std::string>()][lane] = n.get<std::uint64_t>();
  }
  return sums;
}

std::vector<std::string> logs_in(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());  // as the shell expands DIR/*.log
  return files;
}

std::string between(const std::string& text, const std::string& from, const std::string& to) {
  const std::size_t a = text.find(from);
  REQUIRE(a != std::string::npos);
  const std::size_t b = text.find(to, a + from.size());
  REQUIRE(b != std::string::npos);
  return text.substr(a + from.size(), b - a - from.size());
}

// Waits (polling the file the child writes) until `text` appears in it; false after `timeout`.
bool await_output(const std::string& path, const std::string& text, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (read_file(path).find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Hour 3: ten replicas sweep unelected, each pacing the sweep to keep 5 % of
// L = 12 500 (625) at the reset, with a demand of 1.4 L. Nothing is limited,
// the forge's own count of the core budget's spend reaches 90 % of L - keep
// (10 687), and the lowest reading before the reset is within 10 % of L of
// the keep (measured: 11 408 sweep requests, 792 left).
void check_paced_hour(const std::string& text, const std::map<std::string, std::uint64_t>& forge) {
  std::uint64_t core = 0;
  for (const auto& [lane, n] : forge)
    if (lane != "pr-search" && lane != "app-token") core += n;  // searches spend the search bucket, mints the App's
  MESSAGE("hour 3, paced: the forge counted " << core << " requests on the core budget");
  CHECK(core >= 10'687);
  CHECK(core <= 12'500);
  const auto at = text.find("hour 3: every replica swept, unelected but paced: ");
  REQUIRE(at != std::string::npos);
  const std::string said = text.substr(at, text.find('\n', at) - at);
  INFO(said);
  const auto left_at = said.find(" left ");
  REQUIRE(left_at != std::string::npos);
  unsigned long long left = 0, limit = 0, keep = 0;
  REQUIRE(std::sscanf(said.c_str() + left_at, " left %llu of %llu (to keep: %llu)", &left, &limit, &keep) == 3);
  CHECK(limit == 12'500);
  CHECK(keep == 625);
  CHECK(left > 0);
  CHECK(left <= keep + limit / 10);
  CHECK(said.ends_with("the hour is not exhausted"));
  const std::string row = between(text, "\n2026-09-30T12:00Z", "\n");
  CHECK(row.find("EXHAUSTED") == std::string::npos);
  CHECK(row.find("limited") == std::string::npos);
  // The lanes lines say the sweep, and only the sweep, waited for its pace:
  // the by-lane table's PACED MS column (the 8th), hour 3's rows.
  std::istringstream lanes(between(text, "by lane: what a cache spared, and time waited (ms)\n", "\n\n"));
  std::map<std::string, std::string> paced;
  for (std::string line; std::getline(lanes, line);) {
    std::istringstream cells(line);
    std::vector<std::string> c{std::istream_iterator<std::string>(cells), {}};
    if (c.size() == 9 && c[0] == "2026-09-30T12:00Z") paced[c[3]] = c[7];
  }
  INFO("hour 3's paced ms by lane: " << paced.size() << " lanes with a row");
  REQUIRE(paced.count("merge-gate-sweeper") == 1);
  for (const auto& [lane, ms] : paced) CHECK((lane == "merge-gate-sweeper") == (ms != "-"));
}

// --forge-counts' tokens_minted, by period's end.
std::map<std::string, std::uint64_t> forge_minted(const std::string& path) {
  std::map<std::string, std::uint64_t> minted;
  const auto counts = nlohmann::json::parse(read_file(path));
  for (const auto& p : counts.at("periods"))
    minted[p.at("until").get<std::string>()] = p.at("tokens_minted").get<std::uint64_t>();
  return minted;
}

// Each replica mints its own installation token with the App's JWT, through
// its Transport (lane app-token) and, in hour 4, through its proxy, which
// learns the token's installation from the forge's answer: every line of
// every hour is charged to installation 101, none to a credential's key.
void check_tokens(const std::string& text, const std::string& counts, const Sums& forge,
                  const std::vector<std::string>& logs) {
  const auto minted = forge_minted(counts);
  REQUIRE(minted.size() == 4);
  CHECK(minted.at("2026-09-30T10:00Z") >= 10);  // every replica minted its first
  std::string said =
      "installation tokens minted (the forge's count; 10 replicas, each minting its own, renewed with "
      "a minute left):";
  int hour = 0;
  for (const auto& [until, n] : minted) {
    MESSAGE("tokens minted in the hour ending " << until << ": " << n);
    // Every mint request was answered with a token (the proxies forwarded each: one client each).
    CHECK(forge.at(until).at("app-token") == n);
    said += (hour == 0 ? " hour " : "; hour ") + std::to_string(hour + 1) + " " + std::to_string(n);
    ++hour;
  }
  CHECK(text.find(said + "\n") != std::string::npos);
  for (const auto& file : logs) {
    std::istringstream in(read_file(file));
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("forge HTTP: ", 0) != 0) continue;
      std::istringstream entries(line.substr(line.find(" \xe2\x80\x94 ") + 5));
      for (std::string entry; std::getline(entries, entry, ',');)
        CHECK(entry.find(" installation 101 ") != std::string::npos);
    }
  }
}

}  // namespace

TEST_CASE("demo: hours printed as they end; report == logs summed here == forge's own counts") {
  TempDir dir;
  const std::string logs = dir.file("logs"), counts = dir.file("forge.json"), out = dir.file("out"),
                    err = dir.file("err");
  // 10 replicas as in the README; 1200x so four simulated hours take ~12 s.
  const auto child = spawn_process({FORGEMETER_DEMO_BIN, "--speed", "1200", "--html", dir.file("demo.html"), "--logs",
                                    logs, "--forge-counts", counts},
                                   out, err);
  // Hour 1's line comes while hour 2 is still being replayed.
  REQUIRE(await_output(out, "hour 1, ending 2026-09-30T10:00Z: ", std::chrono::seconds(120)));
  CHECK(wait_exit(child.pid, std::chrono::milliseconds(0)) == -1);
  CHECK(read_file(out).find("hour 2, ending") == std::string::npos);
  const int exit_code = wait_exit(child.pid, std::chrono::seconds(240));
  const std::string text = read_file(out);
  INFO(read_file(err));
  INFO(text);  // its comparison table says which lane and hour differ
  REQUIRE(exit_code == 0);
  CHECK(text.find("hour 2, ending 2026-09-30T11:00Z: ") < text.find("hour 3, ending 2026-09-30T12:00Z: "));
  CHECK(text.find("hour 3, ending 2026-09-30T12:00Z: ") < text.find("hour 4, ending 2026-09-30T13:00Z: "));
  CHECK(text.find("hour 4, ending 2026-09-30T13:00Z: ") < text.find("the fleet report of those lines"));

  // Three sums that share no code: the forge's, the logs' read here, the report's.
  std::string notes;
  const auto files = logs_in(logs);
  CHECK(files.size() == 10);
  const Sums from_logs = sum_count_lines(files, notes);
  const Sums forge = forge_sums(counts);
  CHECK(forge.size() == 4);  // hour 4's lines are the replicas' proxies': they agree with the forge too
  CHECK(from_logs == forge);
  CHECK(notes.empty());  // counting began on the hour: no line of a partial hour
  std::vector<std::string> report{FORGEMETER_BIN, "report", "--format", "json"};
  report.insert(report.end(), files.begin(), files.end());
  const auto json = run_process(report);
  REQUIRE(json.exit_code == 0);
  CHECK(report_sums(json.out) == forge);
  // The demo's table is the report of its logs, byte for byte.
  report.erase(report.begin() + 2, report.begin() + 4);
  const auto table = run_process(report);
  REQUIRE(table.exit_code == 0);
  CHECK(between(text, "the fleet report of those lines (forgemeter report):\n\n", "\nthe report beside") == table.out);

  CHECK(text.find("the installation's budget ran out at 09:") != std::string::npos);
  auto at = text.find("sweep cost: hour 1 ");
  REQUIRE(at != std::string::npos);
  unsigned long long h1 = 0, h2 = 0;
  REQUIRE(std::sscanf(text.c_str() + at, "sweep cost: hour 1 %llu requests, hour 2 %llu", &h1, &h2) == 2);
  CHECK(h1 == forge.at("2026-09-30T10:00Z").at("merge-gate-sweeper"));
  const double ratio = static_cast<double>(h1) / static_cast<double>(h2);
  MESSAGE("sweep cost hour 1 / hour 2 = " << ratio);
  CHECK(ratio > 8.0);  // ~R = 10; one pass either way at the hand-over
  CHECK(ratio < 12.0);
  CHECK(h1 >= 11'700);
  CHECK(h1 <= 19'400);
  // The elected sweep's cache: hour 2's re-reads are revalidated, 304s the
  // forge charges nothing, so the sweep is charged about the 240 distinct
  // resources it reads (a hand-over to another replica, whose cache is cold,
  // reads them once more); hour 1, uncached, has no 304.
  at = text.find("sweep charged (the forge's count; a 304 is free): hour 1 ");
  REQUIRE(at != std::string::npos);
  unsigned long long w1 = 0, c2 = 0, w2 = 0;
  REQUIRE(std::sscanf(text.c_str() + at,
                      "sweep charged (the forge's count; a 304 is free): hour 1 %llu requests, no 304 (no cache); "
                      "hour 2 %llu of %llu",
                      &w1, &c2, &w2) == 3);
  MESSAGE("sweep charged in hour 2: " << c2 << " of " << w2);
  CHECK(w1 == h1);
  CHECK(w2 == h2);
  CHECK(c2 >= 240);
  CHECK(c2 <= 3 * 240);
  const Sums not_modified = forge_sums(counts, "not_modified");
  CHECK(not_modified.count("2026-09-30T10:00Z") == 0);  // no 304 in hour 1
  CHECK(w2 - c2 == not_modified.at("2026-09-30T11:00Z").at("merge-gate-sweeper"));
  // The report's 304s (its answers lines) equal the forge's, period by period.
  const std::string rows = between(text, "the report beside the forge's own count of what it received:\n", "\n\n");
  CHECK(rows.find("answered 304") != std::string::npos);
  CHECK(rows.find("DIFFER") == std::string::npos);
  // Searches spend their own bucket: the burst in hour 2 runs it out without any false alarm.
  CHECK(forge.at("2026-09-30T10:00Z").count("pr-search") == 1);
  CHECK(text.find("reported as limited, and the hour is not exhausted") != std::string::npos);
  const std::string row = between(text, "\n2026-09-30T11:00Z", "\n");
  CHECK(row.find("installation 101 search limited at 10:20:") != std::string::npos);
  CHECK(row.find("EXHAUSTED") == std::string::npos);
  // The incident hour is whole and exhausted on the page too.
  const std::string page = read_file(dir.file("demo.html"));
  const std::size_t bar = page.find(R"(<g class="bar" data-hour="2026-09-30T10:00Z")");
  REQUIRE(bar != std::string::npos);
  CHECK(page.find(R"( data-slot="0" data-partial="false")", bar) < page.find('>', bar));
  CHECK(page.find(R"(data-partial="true")") == std::string::npos);
  CHECK(page.find(R"(<g class="exhausted">)") != std::string::npos);
  check_paced_hour(text, forge.at("2026-09-30T12:00Z"));
  // Hour 4: each replica's sweep through a proxy of its own, which revalidates (304s, free) and paces.
  CHECK(text.find("hour 4: every replica swept through a forgemeter proxy of its own") != std::string::npos);
  CHECK(forge.at("2026-09-30T13:00Z").at("merge-gate-sweeper") > 0);
  CHECK(not_modified.at("2026-09-30T13:00Z").at("merge-gate-sweeper") > 0);
  CHECK(between(text, "hour 4: every replica swept", "\n").find("not exhausted") != std::string::npos);
  check_tokens(text, counts, forge, files);
}

TEST_CASE("demo: a lost log makes the demo's own check say DIFFER and exit 1; --html - has stdout to itself") {
  TempDir dir;
  auto r = run_process({FORGEMETER_DEMO_BIN, "--replicas", "3", "--hours", "1", "--speed", "1200", "--lose-log", "1",
                        "--logs", dir.file("logs"), "--html", "-"},
                       {.timeout = std::chrono::seconds(120)});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("all lanes") != std::string::npos);  // the demo's own lines go to stderr
  CHECK(r.err.find("DIFFER") != std::string::npos);
  CHECK(r.err.find("differ") != std::string::npos);
  CHECK(r.out.rfind("<!DOCTYPE html>", 0) == 0);  // stdout holds the page and nothing else
  CHECK(r.out.ends_with("</html>\n"));
  CHECK(r.out.find("hour 1, ending") == std::string::npos);
  CHECK(logs_in(dir.file("logs")).size() == 2);  // the lost one is not written either
}

TEST_CASE("demo: --version and -V say the demo's name and version, exit 0") {
  const std::string ours = run_process({FORGEMETER_BIN, "--version"}).out;  // "forgemeter X.Y.Z (libcurl/…"
  const std::size_t from = std::string_view("forgemeter ").size();
  const std::string version = ours.substr(from, ours.find(' ', from) - from);
  for (const char* flag : {"--version", "-V"}) {
    const auto r = run_process({FORGEMETER_DEMO_BIN, flag});
    CHECK(r.exit_code == 0);
    CHECK(r.out == "forgemeter-demo " + version + "\n");
  }
}

TEST_CASE("demo: a number out of its range, a '-' it cannot take, a mistyped option: our words, exit 2, nothing run") {
  struct Case {
    std::vector<std::string> args;
    std::string said;
  };
  for (const Case& c : {
           Case{{"--replicas", "0"},
                "forgemeter-demo: --replicas: '0' is not a replica count: give a whole number from 1 to 50; see "
                "'forgemeter-demo --help'\n"},
           Case{{"--speed", "1e3"}, "forgemeter-demo: --speed: '1e3' is not a speed: give a number from 10 to 5000"},
           Case{{"--lose-log", "50"},
                "forgemeter-demo: --lose-log: '50' is not a replica number: give a whole number from 0 to 49"},
           Case{{"--hours", "\x1b[2J"},
                "forgemeter-demo: --hours: '\\x1b[2J' is not an hour count: give a whole number from 1 to 4"},
           Case{{"--logs", "-"}, "forgemeter-demo: --logs: takes a directory (one log per replica), not '-'"},
           Case{{"--replica", "3"}, "forgemeter-demo: unknown option '--replica'; did you mean '--replicas'?\n"},
           Case{{"extra"}, "forgemeter-demo: unexpected argument 'extra'; see 'forgemeter-demo --help'\n"},
           // the suggestion is the parser's value: words that read like one are no suggestion
           Case{{"did you mean 'x'?"},
                "forgemeter-demo: unexpected argument 'did you mean 'x'?'; see 'forgemeter-demo --help'\n"},
           Case{{"--html"}, "forgemeter-demo: --html needs a value (FILE); see 'forgemeter-demo --help'\n"},
           Case{{"--html", "-", "--forge-counts", "-"},
                "forgemeter-demo: --forge-counts: '-' is stdout, which --html - already takes; give one a file"},
       }) {
    CAPTURE(c.args);
    auto args = c.args;
    args.insert(args.begin(), FORGEMETER_DEMO_BIN);
    auto r = run_process(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind(c.said, 0) == 0);  // the message first, the whole of stderr
    CHECK(r.err.find('\n') == r.err.size() - 1);
    CHECK(r.err.find('\x1b') == std::string::npos);
    CHECK(r.out.empty());
  }
}

// The rule forgemeter keeps (test/cli/conventions_test.cc), from the same runner:
// --help, --version and the demo's own lines to a full disk are a failure, said.
TEST_CASE("demo: stdout that cannot be written (a full disk) is a failure, said on stderr, not a silent 0") {
  TempDir dir;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--help"}, std::vector<std::string>{"--version"},
        std::vector<std::string>{"--hours", "1", "--speed", "5000", "--replicas", "2"}}) {
    CAPTURE(args);
    std::vector<std::string> argv{FORGEMETER_DEMO_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto child = spawn_process(argv, "/dev/full", dir.file("err"));
    CHECK(wait_exit(child.pid, std::chrono::seconds(60)) == 1);
    const std::string err = read_file(dir.file("err"));
    CHECK(err.rfind("forgemeter-demo: cannot write to stdout: ", 0) == 0);
    CHECK(err.find('\n') == err.size() - 1);  // one line
  }
}
