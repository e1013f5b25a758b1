// `forgemeter report` as a process, over a multi-file fixture with known sums:
// plain text (replica-a.log), JSON records with escaped dashes and quotes
// (replica-b.json), gzip (replica-c.log.gz), partial hours, skipped garbage.
#include <doctest/doctest.h>

#include <zlib.h>

#include "process.h"

using namespace forgemeter::test;

namespace {

std::string fixture(const std::string& name) { return std::string(FIXTURES) + "/" + name; }

ProcessResult report(std::vector<std::string> args, ProcessOptions opt = {}) {
  args.insert(args.begin(), {forgemeter_bin(), "report"});
  return run_process(args, opt);
}

const std::vector<std::string> kAll = {fixture("replica-a.log"), fixture("replica-b.json"), fixture("replica-c.log.gz")};

std::size_t occurrences(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

std::size_t line_count(const std::string& s) { return occurrences(s, "\n"); }

}  // namespace

TEST_CASE("csv over the three replicas: the known sums, partial hour, lowest remaining") {
  std::vector<std::string> args = kAll;
  args.insert(args.begin(), {"--format", "csv"});
  auto r = report(args);
  CHECK(r.exit_code == 0);
  CHECK(r.out ==
        "hour_ending,requests,replicas,partial,lowest_remaining,lowest_at,limit,over_limit,exhausted_at,"
        "lane:other,lane:merge-gate-sweeper\n"
        "2026-09-30T15:00Z,1350,2,false,0,2026-09-30T14:47:33Z,5000,false,2026-09-30T14:47:33Z,100,1250\n"
        "2026-09-30T16:00Z,410,3,true,4650,2026-09-30T15:58:00Z,5000,false,,60,350\n");
  // Skipped: the JSON record with a bad N, and the line cut short in the gzip file.
  CHECK(r.err.find("skipped 2 malformed meter lines") != std::string::npos);
  CHECK(r.err.find("replica-b.json:5: ") != std::string::npos);
  CHECK(r.err.find("replica-c.log.gz:4: ") != std::string::npos);
}

TEST_CASE("json: one object per hour with hosts, installations, budgets and answers") {
  std::vector<std::string> args = kAll;
  args.insert(args.begin(), {"--format", "json"});
  auto r = report(args);
  REQUIRE(r.exit_code == 0);
  CHECK(line_count(r.out) == 2);
  auto first = r.out.substr(0, r.out.find('\n'));
  auto second = r.out.substr(r.out.find('\n') + 1);
  CHECK(first.find(R"("hour_ending":"2026-09-30T15:00Z","hour_start":"2026-09-30T14:00Z","requests":1350,"replicas":2)") == 1);
  CHECK(first.find(R"("lanes":{"other":100,"merge-gate-sweeper":1250})") != std::string::npos);
  CHECK(first.find(R"({"host":"api.github.com","api":"rest","requests":1290,"answers":{"2xx":1180,"304":40,"limited":70}})") != std::string::npos);
  CHECK(first.find(R"({"host":"api.github.com","api":"graphql","requests":60,"answers":{"2xx":60}})") != std::string::npos);
  CHECK(first.find(R"("installations":[{"installation":0,"requests":100},{"installation":101,"requests":1250}])") != std::string::npos);
  CHECK(first.find(R"("installation":101,"requests":1250,"lowest_remaining":0,"lowest_at":"2026-09-30T14:47:33Z")") != std::string::npos);
  CHECK(first.find(R"("exhausted":true,"first_exhausted_at":"2026-09-30T14:47:33Z")") != std::string::npos);
  CHECK(second.find(R"("requests":410,"replicas":3)") != std::string::npos);
  CHECK(second.find(R"("partial":true)") != std::string::npos);
  CHECK(second.find(R"({"host":"uploads.github.com","api":"rest","requests":50)") != std::string::npos);
  CHECK(second.find(R"({"installation":202,"requests":10})") != std::string::npos);
  CHECK(second.find(R"("exhausted":false)") != std::string::npos);
}

TEST_CASE("--budget flags the hours the fleet went over; --source-field names replicas from JSON") {
  std::vector<std::string> args = kAll;
  args.insert(args.begin(), {"--format", "json", "--budget", "1000", "--source-field", "pod"});
  auto r = report(args);
  REQUIRE(r.exit_code == 0);
  auto first = r.out.substr(0, r.out.find('\n'));
  CHECK(first.find(R"("limit":1000,"over_limit":true)") != std::string::npos);
  CHECK(first.find(R"("seen_by":"web-2")") != std::string::npos);
  CHECK(first.find(R"x(replica-a.log (no \"pod\")","web-2"])x") != std::string::npos);
  CHECK(r.out.substr(r.out.find('\n')).find(R"("over_limit":false)") != std::string::npos);
}

TEST_CASE("--threads: tiny pieces read by several threads give one thread's report, byte for byte") {
  for (const char* format : {"csv", "json", "table"}) {
    std::vector<std::string> args = kAll;
    args.insert(args.begin(), {"--format", format, "--source-field", "pod"});
    auto one_args = args, many_args = args;
    one_args.insert(one_args.begin(), {"--threads", "1"});
    many_args.insert(many_args.begin(), {"--threads", "3", "--chunk-bytes", "16"});
    auto one = report(one_args), many = report(many_args);
    CHECK(one.exit_code == 0);
    CHECK(many.exit_code == 0);
    CHECK(many.out == one.out);
    CHECK(many.err == one.err);
  }
}

TEST_CASE("stdin and '-', plain and gzip, and the table") {
  auto plain = report({"--format", "csv"}, {.stdin_data = read_file(fixture("replica-a.log"))});
  CHECK(plain.exit_code == 0);
  CHECK(plain.out.find("\n2026-09-30T15:00Z,700,1,false,120,2026-09-30T14:52:10Z,5000,false,,60,640\n") != std::string::npos);
  auto gz = report({"--format", "csv", "-"}, {.stdin_data = read_file(fixture("replica-c.log.gz"))});
  CHECK(gz.exit_code == 0);
  CHECK(gz.out.find("\n2026-09-30T16:00Z,90,1,true,4650,") != std::string::npos);

  auto table = report(kAll);
  CHECK(table.exit_code == 0);
  CHECK(table.out.find("HOUR ENDING") == 0);
  CHECK(table.out.find("2026-09-30T15:00Z") != std::string::npos);
  CHECK(table.out.find("EXHAUSTED") != std::string::npos);
  CHECK(table.out.find("1350") != std::string::npos);
  CHECK(table.out.find("by installation") != std::string::npos);
}

TEST_CASE("--html writes a self-contained page with one bar per hour") {
  TempDir dir;
  std::vector<std::string> args = kAll;
  args.insert(args.begin(), {"--html", dir.file("report.html")});
  auto r = report(args);
  REQUIRE(r.exit_code == 0);
  std::string page = read_file(dir.file("report.html"));
  CHECK(occurrences(page, "<g class=\"bar\"") == 2);
  CHECK(occurrences(page, "class=\"seg\"") == 4);  // two lanes in each hour
  CHECK(occurrences(page, "<path class=\"budget\"") == 1);
  CHECK(occurrences(page, "<g class=\"exhausted\"") == 1);
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("http://") == page.find("http://www.w3.org/2000/svg"));  // no link but the SVG namespace
}

TEST_CASE("errors: a missing file, a bad option, a truncated gzip; --help") {
  auto missing = report({"/nonexistent/forgemeter.log"});
  CHECK(missing.exit_code == 1);
  CHECK(line_count(missing.err) == 1);
  CHECK(missing.err.find("cannot open '/nonexistent/forgemeter.log'") != std::string::npos);

  auto usage = report({"--format", "yaml"});
  CHECK(usage.exit_code == 2);
  CHECK(line_count(usage.err) == 1);
  CHECK(usage.err.find("forgemeter report --help") != std::string::npos);

  auto help = report({"--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("--source-field") != std::string::npos);

  TempDir dir;
  std::string gz = read_file(fixture("replica-c.log.gz"));
  write_file(dir.file("cut.log.gz"), gz.substr(0, gz.size() - 12));  // lose the trailer and some data
  auto cut = report({"--format", "csv", dir.file("cut.log.gz")});
  CHECK(cut.exit_code == 1);
  CHECK(cut.err.find("gzip stream is truncated") != std::string::npos);
  CHECK(cut.out.find("hour_ending,") == 0);  // what could be read is still reported
}

TEST_CASE("a multi-member gzip and a large input are read whole") {
  TempDir dir;
  std::string line = "forge HTTP: 3 requests in the hour ending 2026-09-30T15:00Z \xE2\x80\x94 api.github.com rest other=3\n";
  std::string noise(200, 'x');
  noise += '\n';
  std::string text;
  for (int i = 0; i < 50'000; ++i) text += (i % 100 == 0 ? line : noise);  // ~10 MB: several read blocks
  std::string member;
  for (int part = 0; part < 2; ++part) {
    gzFile f = gzopen(dir.file("p.gz").c_str(), "wb");
    gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
    member += read_file(dir.file("p.gz"));
  }
  write_file(dir.file("two.gz"), member);
  auto r = report({"--format", "csv", dir.file("two.gz")});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("\n2026-09-30T15:00Z,3000,1,false,") != std::string::npos);  // 2 x 500 lines x 3
  auto piped = report({"--format", "csv"}, {.stdin_data = text});
  CHECK(piped.out.find("\n2026-09-30T15:00Z,1500,1,false,") != std::string::npos);
}
