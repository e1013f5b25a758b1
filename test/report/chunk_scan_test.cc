// Plain files read by several threads in pieces (src/report/chunk_scan.cc): the
// report must be byte-identical to one thread's, in every format and in the
// skipped-line summary, and sum what a generated log's generator wrote, whatever the piece size (tiny pieces put their edges
// inside lines, and most pieces hold no meter line at all). In-process, so it
// runs under TSan too.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "forgemeter/lines.h"
#include "report/render_views.h"
#include "report/scanner.h"

using namespace forgemeter;
using namespace forgemeter::report;
using namespace std::chrono;

namespace {

// A file under the temporary directory, removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/forgemeter-chunk-XXXXXX";
    int fd = mkstemp(path_.data());
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    close(fd);
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Run {
  unsigned threads = 1;
  std::size_t chunk_bytes = 0;
  std::string source_field;
  std::optional<std::uint64_t> budget;
};

// Every rendering of the report over `files`, concatenated.
std::string report_text(const std::vector<std::string>& files, const Run& run) {
  Fleet fleet(FleetOptions{run.budget});
  Scanner scanner(fleet, ScanOptions{run.source_field, run.threads, run.chunk_bytes});
  scanner.scan_inputs(files);
  ReportData data{fleet.hours(), fleet.source_names(), scanner.stats()};
  return render_table(data) + "\n--\n" + render_json(data) + "\n--\n" + render_csv(data) + "\n--\n" +
         render_replica_table(data) + "\n--\n" + render_replica_json(data) + "\n--\n" + render_skipped(data.stats) +
         "\n--\nbytes " + std::to_string(data.stats.bytes) + " lines " + std::to_string(data.stats.lines);
}

std::string fixture(const std::string& name) { return std::string(FIXTURES) + "/" + name; }

// A multi-replica log: plain and JSON records from six pods over a few hours,
// with notes, equal lowest readings from different pods (the tie goes to the
// earlier line), zero readings, search and GraphQL readings beside core, and a
// dozen malformed lines scattered through the file (only the first five are
// listed, in file order).
// `per_hour`, when given, gets the generator's own request sums by hour ending
// (the malformed lines are not counted: the report skips them).
std::string generated_log(std::map<sys_seconds, std::uint64_t>* per_hour = nullptr) {
  std::mt19937_64 rng(7);
  const sys_seconds first = sys_days{2026y / 9 / 30} + 1h;
  const char* lanes[] = {"other", "merge-gate-sweeper", "board-sync"};
  std::string log;
  int malformed = 0;
  for (int hour = 0; hour < 6; ++hour) {
    const sys_seconds ending = first + hours(hour);
    for (int pod = 0; pod < 6; ++pod) {
      for (int noise = 0; noise < 25; ++noise)
        log += "2026-09-30T01:02:03Z INFO pod-" + std::to_string(pod) + " gate: run " + std::to_string(rng() % 1000) +
               "\n";
      HourNote note;
      if (pod == 2 && hour % 2 == 0) note.until = seconds(3600 * ((hour + 1) % 24) - 120);
      CountLine c{ending, note, 0, {}};
      for (int k = 0; k < 3; ++k) {
        c.entries.push_back(CountEntry{k == 2 ? "uploads.github.com" : "api.github.com",
                                       k == 1 ? Api::graphql : Api::rest,
                                       k == 0 ? 101u + static_cast<unsigned>(pod % 2) : 0u, lanes[k], 1 + rng() % 500});
        c.total += c.entries.back().count;
      }
      if (per_hour != nullptr) (*per_hour)[ending] += c.total;
      const std::uint64_t remaining =
          hour == 3 ? 0 : 1000 + static_cast<std::uint64_t>(pod % 3) * 10;  // ties across pods
      // Per-resource readings too: search runs out in hour 2 (ties across pods), GraphQL points read beside core.
      const std::uint64_t inst = 101u + static_cast<unsigned>(pod % 2),
                          search = hour == 2 ? 0 : 10 + static_cast<std::uint64_t>(pod % 3);
      const seconds at(3600 * (hour % 24) + 600);
      BudgetLine b{ending,
                   note,
                   {BudgetEntry{"api.github.com", Api::graphql, inst, "", 4000 + static_cast<std::uint64_t>(pod % 2),
                                5000, at, std::nullopt},
                    BudgetEntry{"api.github.com", Api::rest, inst, "", remaining, 5000, at, std::nullopt},
                    BudgetEntry{"api.github.com", Api::rest, inst, "search", search, 30, at + seconds(pod), at + 60s}}};
      AnswersEntry ae{"api.github.com", Api::rest, {}};
      ae.counts[0] = c.total;
      AnswersLine a{ending, note, {ae}};
      const std::string pod_name = "web-" + std::to_string(pod);
      for (const MeterLine& l : {MeterLine(c), MeterLine(b), MeterLine(a)}) {
        std::string text = format_line(l);
        if (pod % 2 == 0) {
          log += "[pod/" + pod_name + "/app] INFO " + text + "\n";
        } else {  // a JSON record: the dash escaped, the pod as a field
          std::string escaped;
          for (std::size_t i = 0; i < text.size(); ++i)
            escaped += text.compare(i, 3, "\u2014") == 0 ? (i += 2, std::string("\\u2014")) : std::string(1, text[i]);
          log += R"({"pod":")" + pod_name + R"(","msg":")" + escaped + "\"}\n";
        }
      }
      if ((hour * 6 + pod) % 3 == 1) {
        log += "[pod/" + pod_name + "/app] INFO forge HTTP: " + std::to_string(++malformed) +
               " requests in the hour ending 2026-09-30T0" + std::to_string(hour) +
               ":00Z \u2014 api.github.com rest x=\n";
      }
    }
  }
  return log;
}

// The report's requests per hour ending, as a scan with `run` sums them.
std::map<sys_seconds, std::uint64_t> hourly_requests(const std::vector<std::string>& files, const Run& run) {
  Fleet fleet(FleetOptions{run.budget});
  Scanner scanner(fleet, ScanOptions{run.source_field, run.threads, run.chunk_bytes});
  scanner.scan_inputs(files);
  std::map<sys_seconds, std::uint64_t> out;
  for (const FleetHour& h : fleet.hours()) out[h.hour_ending] = h.requests;
  return out;
}

// Piece sizes: 1 byte puts a piece edge everywhere, but costs a task per
// byte, so only the small fixtures take it; at 7 bytes every line of the
// generated logs still has edges inside it.
constexpr std::size_t kEveryPieceSize[] = {1, 7, 100, 4096, 0};
constexpr std::size_t kPieceSizes[] = {7, 100, 4096, 0};

void check_identical(const std::vector<std::string>& files, Run run,
                     std::span<const std::size_t> pieces = kPieceSizes) {
  const std::string one = report_text(files, run);
  for (unsigned threads : {2u, 3u, 8u})
    for (std::size_t chunk : pieces) {
      run.threads = threads;
      run.chunk_bytes = chunk;
      CAPTURE(threads);
      CAPTURE(chunk);
      CHECK(report_text(files, run) == one);
    }
}

}  // namespace

TEST_CASE("threads over the multi-file fixture: the report of one thread, byte for byte") {
  const std::vector<std::string> files = {fixture("replica-a.log"), fixture("replica-b.json"),
                                          fixture("replica-c.log.gz")};
  check_identical(files, {}, kEveryPieceSize);
  check_identical(files, Run{.source_field = "pod", .budget = 1000}, kEveryPieceSize);
  const std::vector<std::string> resources = {fixture("resources-a.log"), fixture("resources-b.log")};
  check_identical(resources, {}, kEveryPieceSize);
  check_identical(resources, Run{.budget = 1000}, kEveryPieceSize);
}

TEST_CASE("threads over a generated multi-replica log with piece edges inside lines") {
  std::map<sys_seconds, std::uint64_t> expected;
  TempFile log(generated_log(&expected));
  REQUIRE(expected.size() == 6);
  // Right, not only alike: one thread and several sum what the generator wrote.
  for (const Run& run : {Run{}, Run{.threads = 8, .chunk_bytes = 7}, Run{.threads = 3, .chunk_bytes = 4096}}) {
    CAPTURE(run.threads);
    CHECK(hourly_requests({log.path()}, run) == expected);
  }
  const std::string one = report_text({log.path()}, {});
  REQUIRE(one.find("skipped 12 malformed meter lines") != std::string::npos);
  check_identical({log.path()}, {});
  check_identical({log.path()}, Run{.source_field = "pod"});
  check_identical({log.path(), log.path()}, Run{.budget = 700});  // the same file twice: one source, twice the sums
}

TEST_CASE("CRI lines split into P records: joined across piece edges, the report of one thread, byte for byte") {
  // Meter lines of every hour split into 2 and 3 pieces, the other stream's
  // lines (whole meter lines too) between them, junk, and at the end a line
  // whose F never came.
  std::string log;
  std::map<sys_seconds, std::uint64_t> expected;
  for (int hour = 1; hour <= 6; ++hour) {
    const std::string ending = "2026-09-30T0" + std::to_string(hour) + ":00Z";
    const std::string a = "forge HTTP: 7 requests in the hour ending " + ending + " \u2014 h rest x=7";
    const std::string b = "forge HTTP: 5 requests in the hour ending " + ending + " \u2014 h rest y=5";
    const std::string t = "2026-09-30T0" + std::to_string(hour - 1) + ":10:00.5Z ";
    log += t + "stderr P " + a.substr(0, 20) + "\n" + t + "stdout F app says hi\n" + t + "stdout F " + b + "\n";
    log += t + "stderr P " + a.substr(20, 15) + "\n" + t + "stderr F " + a.substr(35) + "\n";
    log += t + "stdout P " + b.substr(0, 30) + "\n" + t + "stderr F junk\n" + t + "stdout F " + b.substr(30) + "\n";
    expected[sys_days{2026y / 9 / 30} + hours{hour}] = 17;
  }
  log += "2026-09-30T06:10:00.5Z stderr P forge HTTP: 9 requests in the hour ending 2026-09-30T07:00Z\n";
  TempFile file(log);
  for (const Run& run : {Run{}, Run{.threads = 8, .chunk_bytes = 7}, Run{.threads = 3, .chunk_bytes = 100}}) {
    CAPTURE(run.threads);
    CHECK(hourly_requests({file.path()}, run) == expected);
  }
  const std::string one = report_text({file.path()}, {});
  CHECK(one.find("lines 18") != std::string::npos);
  CHECK(one.find(":49: a line split in CRI records flagged P whose F record never came") != std::string::npos);
  check_identical({file.path()}, {}, kEveryPieceSize);
}

TEST_CASE("thousands of hours: hours() (built on two threads) lists every one, ascending, with its sums") {
  Fleet fleet;
  const auto a = fleet.source("a"), b = fleet.source("b");
  const sys_seconds first = sys_days{2026y / 1 / 1} + 1h;
  constexpr int kHours = 5000;
  for (int i = kHours - 1; i >= 0; --i) {  // out of order on purpose
    const auto n = static_cast<std::uint64_t>(i + 1);
    fleet.add(a, CountLine{first + hours(i), {}, n, {CountEntry{"api.github.com", Api::rest, 101, "sweeper", n}}});
    fleet.add(b, BudgetLine{first + hours(i),
                            {},
                            {BudgetEntry{"api.github.com", Api::rest, 101, "", n, 5000, seconds(60), std::nullopt}}});
  }
  const auto all = fleet.hours();
  REQUIRE(all.size() == kHours);
  for (int i = 0; i < kHours; ++i) {
    const FleetHour& h = all[static_cast<std::size_t>(i)];
    CAPTURE(i);
    REQUIRE(h.hour_ending == first + hours(i));
    CHECK(h.requests == static_cast<std::uint64_t>(i + 1));
    CHECK(h.lanes.at("sweeper") == static_cast<std::uint64_t>(i + 1));
    CHECK(h.sources == std::vector<std::uint32_t>{a, b});
    const BudgetView& bv = h.budgets.at(BudgetKey{"api.github.com", Api::rest, 101});
    CHECK(bv.lowest == static_cast<std::uint64_t>(i + 1));
    CHECK(bv.lowest_source == "b");
  }
}
