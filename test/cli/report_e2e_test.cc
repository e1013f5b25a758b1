// `forgemeter report` as a process, over a multi-file fixture with known sums:
// plain text (replica-a.log), JSON records with escaped dashes and quotes
// (replica-b.json), gzip (replica-c.log.gz), partial hours, skipped garbage;
// and over two replicas' budgets per resource (resources-a.log, resources-b.log):
// search runs out in the hour ending 15:00Z, core in 16:00Z, 17:00Z is
// mostly GraphQL.
#include <doctest/doctest.h>

#include <zlib.h>

#include "report_run.h"

using namespace fmtest;

namespace {

std::size_t occurrences(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

std::size_t line_count(const std::string& s) { return occurrences(s, "\n"); }

const std::vector<std::string> kResources = {fixture("resources-a.log"), fixture("resources-b.log")};

// The line of `text` that holds `needle` ("" when none does).
std::string line_with(const std::string& text, const std::string& needle) {
  auto at = text.find(needle);
  if (at == std::string::npos) return {};
  auto begin = text.rfind('\n', at), end = text.find('\n', at);
  begin = begin == std::string::npos ? 0 : begin + 1;
  return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

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
  // Skipped: the JSON record with a bad hour, the one whose N is a word
  // (`forge HTTP: banana requests`: the opening words, so malformed, said),
  // and the line cut short in the gzip file.
  CHECK(r.err.find("skipped 3 malformed meter lines") != std::string::npos);
  CHECK(r.err.find("replica-b.json:5: ") != std::string::npos);
  CHECK(r.err.find("replica-b.json:7: expected the total (digits) at 'banana requests") != std::string::npos);
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
  CHECK(first.find(
            R"("hour_ending":"2026-09-30T15:00Z","hour_start":"2026-09-30T14:00Z","requests":1350,"replicas":2)") == 1);
  CHECK(first.find(R"("lanes":{"other":100,"merge-gate-sweeper":1250})") != std::string::npos);
  CHECK(first.find(
            R"({"host":"api.github.com","api":"rest","requests":1290,"answers":{"2xx":1180,"304":40,"limited":70}})") !=
        std::string::npos);
  CHECK(first.find(R"({"host":"api.github.com","api":"graphql","requests":60,"answers":{"2xx":60}})") !=
        std::string::npos);
  CHECK(first.find(R"("installations":[{"installation":0,"requests":100},{"installation":101,"requests":1250}])") !=
        std::string::npos);
  CHECK(first.find(R"("installation":101,"requests":1250,"lowest_remaining":0,"lowest_at":"2026-09-30T14:47:33Z")") !=
        std::string::npos);
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
  for (const auto& files : {kAll, kResources}) {
    for (const char* format : {"csv", "json", "table"}) {
      std::vector<std::string> args = files;
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
}

TEST_CASE("stdin and '-', plain and gzip, and the table") {
  auto plain = report({"--format", "csv"}, {.stdin_data = read_file(fixture("replica-a.log"))});
  CHECK(plain.exit_code == 0);
  CHECK(plain.out.find("\n2026-09-30T15:00Z,700,1,false,120,2026-09-30T14:52:10Z,5000,false,,60,640\n") !=
        std::string::npos);
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
  std::string line =
      "forge HTTP: 3 requests in the hour ending 2026-09-30T15:00Z \xE2\x80\x94 api.github.com rest other=3\n";
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

TEST_CASE("resources, csv: search at 0 is limited, not exhausted; core at 0 is; per-minute columns after the lanes") {
  std::vector<std::string> args = kResources;
  args.insert(args.begin(), {"--format", "csv"});
  auto r = report(args);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out ==
        "hour_ending,requests,replicas,partial,lowest_remaining,lowest_at,limit,over_limit,exhausted_at,"
        "lane:other,lane:merge-gate-sweeper,lowest:code_search,limited_at:code_search,lowest:search,limited_at:search\n"
        "2026-09-30T15:00Z,1500,2,false,3900,2026-09-30T14:40:00Z,5000,false,,100,1400,3,,0,2026-09-30T14:02:11Z\n"
        "2026-09-30T16:00Z,5100,2,false,0,2026-09-30T15:48:09Z,5000,true,2026-09-30T15:48:09Z,0,5100,,,27,\n"
        "2026-09-30T17:00Z,6300,2,false,1000,2026-09-30T16:50:00Z,5000,false,,1900,4400,,,,\n");
}

TEST_CASE("resources, json: a budget object per resource; the hour exhausted only by an hourly budget") {
  std::vector<std::string> args = kResources;
  args.insert(args.begin(), {"--format", "json"});
  auto r = report(args);
  REQUIRE(r.exit_code == 0);
  REQUIRE(line_count(r.out) == 3);
  const std::string search_hour = line_with(r.out, R"("hour_ending":"2026-09-30T15:00Z")");
  const std::string core_hour = line_with(r.out, R"("hour_ending":"2026-09-30T16:00Z")");
  const std::string graphql_hour = line_with(r.out, R"("hour_ending":"2026-09-30T17:00Z")");

  CHECK(search_hour.find(
            R"("exhausted":false,"first_exhausted_at":null,"limited":true,"first_limited_at":"2026-09-30T14:02:11Z",)"
            R"("in_progress":false,"projections":[],"startup_bursts":[]})") != std::string::npos);
  CHECK(search_hour.find(
            R"({"host":"api.github.com","api":"rest","installation":101,"requests":1500,"lowest_remaining":3900,)") !=
        std::string::npos);
  CHECK(search_hour.find(
            R"("limit":5000,"over_limit":false,"exhausted_at":null,"resource":"core","hourly":true,"limited_at":null,)"
            R"("resets":"2026-09-30T14:50:00Z"})") != std::string::npos);
  CHECK(
      search_hour.find(
          R"({"host":"api.github.com","api":"rest","installation":101,"requests":null,"lowest_remaining":0,"lowest_at":"2026-09-30T14:02:11Z",)") !=
      std::string::npos);
  CHECK(
      search_hour.find(
          R"("limit":30,"over_limit":false,"exhausted_at":null,"resource":"search","hourly":false,"limited_at":"2026-09-30T14:02:11Z",)"
          R"("resets":"2026-09-30T14:03:00Z"})") != std::string::npos);
  CHECK(search_hour.find(R"("lowest_remaining":3,"lowest_at":"2026-09-30T14:31:30Z")") != std::string::npos);
  CHECK(search_hour.find(
            R"("resource":"code_search","hourly":false,"limited_at":null,"resets":"2026-09-30T14:32:00Z"})") !=
        std::string::npos);

  CHECK(core_hour.find(
            R"("exhausted":true,"first_exhausted_at":"2026-09-30T15:48:09Z","limited":false,"first_limited_at":null,)"
            R"("in_progress":false,"projections":[],"startup_bursts":[]})") != std::string::npos);
  CHECK(core_hour.find(R"("requests":5100,"lowest_remaining":0,"lowest_at":"2026-09-30T15:48:09Z")") !=
        std::string::npos);
  CHECK(core_hour.find(R"("limit":5000,"over_limit":true,"exhausted_at":"2026-09-30T15:48:09Z","resource":"core")") !=
        std::string::npos);
  CHECK(core_hour.find(R"("lowest_remaining":27,)") != std::string::npos);

  // 3800 GraphQL requests are the graphql budget's, never "over"; core had 2500 of 5000.
  CHECK(
      graphql_hour.find(
          R"({"host":"api.github.com","api":"graphql","installation":101,"requests":3800,"lowest_remaining":1000,)") !=
      std::string::npos);
  CHECK(graphql_hour.find(
            R"("over_limit":false,"exhausted_at":null,"resource":"graphql","hourly":true,"limited_at":null,)"
            R"("resets":"2026-09-30T17:00:00Z"})") != std::string::npos);
  CHECK(graphql_hour.find(R"("installation":101,"requests":2500,"lowest_remaining":3050,)") != std::string::npos);
  CHECK(graphql_hour.find(R"("exhausted":false)") != std::string::npos);
}

TEST_CASE("resources, table: the notes name the limited resource; EXHAUSTED only for the core hour") {
  auto r = report(kResources);
  REQUIRE(r.exit_code == 0);
  // The first line with an hour is its row in the hourly table.
  const std::string search_row = line_with(r.out, "2026-09-30T15:00Z");
  CHECK(search_row.find("3900 at 14:40:00Z") != std::string::npos);  // the hour's lowest is core's, not search's 0
  CHECK(search_row.find("installation 101 search limited at 14:02:11Z (0 of 30)") != std::string::npos);
  CHECK(search_row.find("EXHAUSTED") == std::string::npos);
  const std::string core_row = line_with(r.out, "2026-09-30T16:00Z");
  CHECK(core_row.find("EXHAUSTED: installation 101 over its 5000 by 100; installation 101 out at 15:48:09Z") !=
        std::string::npos);
  const std::string graphql_row = line_with(r.out, "2026-09-30T17:00Z");
  CHECK(graphql_row.find("1000 at 16:50:00Z (graphql)") != std::string::npos);
  CHECK(graphql_row.find("EXHAUSTED") == std::string::npos);
  CHECK(occurrences(r.out, "EXHAUSTED") == 1);
  CHECK(r.out.find("RESOURCE") != std::string::npos);
  CHECK(line_with(r.out, "code_search").find("3 at 14:31:30Z") != std::string::npos);
}

TEST_CASE("resources, --budget: overrides core's limit only") {
  std::vector<std::string> args = kResources;
  args.insert(args.begin(), {"--format", "json", "--budget", "1000"});
  auto r = report(args);
  REQUIRE(r.exit_code == 0);
  const std::string search_hour = line_with(r.out, R"("hour_ending":"2026-09-30T15:00Z")");
  CHECK(search_hour.find(R"("limit":1000,"over_limit":true,"exhausted_at":null,"resource":"core")") !=
        std::string::npos);
  CHECK(search_hour.find(R"("limit":30,"over_limit":false,"exhausted_at":null,"resource":"search")") !=
        std::string::npos);
  CHECK(search_hour.find(R"("exhausted":true)") != std::string::npos);  // 1500 core requests over 1000
  const std::string graphql_hour = line_with(r.out, R"("hour_ending":"2026-09-30T17:00Z")");
  CHECK(graphql_hour.find(R"("limit":5000,"over_limit":false,"exhausted_at":null,"resource":"graphql")") !=
        std::string::npos);
}

TEST_CASE("resources, --html: REST held against the core line, GraphQL beside it; a milder mark for a limited hour") {
  TempDir dir;
  std::vector<std::string> args = kResources;
  args.insert(args.begin(), {"--html", dir.file("report.html")});
  REQUIRE(report(args).exit_code == 0);
  std::string page = read_file(dir.file("report.html"));
  CHECK(occurrences(page, "<g class=\"bar\"") == 3);
  CHECK(occurrences(page, "<g class=\"exhausted\"") == 1);  // the core hour only
  CHECK(occurrences(page, "<g class=\"limited\"") == 1);    // the search hour
  CHECK(page.find("installation 101 search limited at 14:02:11Z (0 of 30): a per-minute limit") != std::string::npos);
  CHECK(occurrences(page, "<rect class=\"graphql\"") == 1);
  CHECK(page.find(R"(data-hour="2026-09-30T17:00Z" data-requests="6300" data-rest="2500" data-graphql="3800")") !=
        std::string::npos);
  CHECK(page.find(R"(data-core-limit="5000")") != std::string::npos);
  CHECK(page.find("GraphQL (own budget)") != std::string::npos);  // the legend entry
  CHECK(page.find("<td>code_search</td>") != std::string::npos);  // the budgets table names resources
}

TEST_CASE("hostile input: an hour's sums past 2^64-1 are an error naming it; a file named twice is read once") {
  const std::string max = "18446744073709551615";
  const std::string log = "forge HTTP: " + max +
                          " requests in the hour ending 2026-09-30T16:00Z \u2014 h rest l=" + max +
                          "\nforge HTTP: 1 requests in the hour ending 2026-09-30T16:00Z \u2014 h rest l=1\n";
  auto wrapped = report({"--format", "csv"}, {.stdin_data = log});
  CHECK(wrapped.exit_code == 1);
  CHECK(wrapped.err.find("the sums of the hour ending 2026-09-30T16:00Z pass 2^64-1") != std::string::npos);
  CHECK(wrapped.out.empty());

  auto twice = report({"--format", "csv", fixture("replica-a.log"), fixture("replica-a.log")});
  auto once = report({"--format", "csv", fixture("replica-a.log")});
  CHECK(twice.exit_code == 0);
  CHECK(twice.out == once.out);
  CHECK(twice.err.find("warning: '" + fixture("replica-a.log") + "' is the same file as") != std::string::npos);
}

TEST_CASE("hostile input: source names reach a terminal escaped; JSON and CSV keep them exact") {
  const std::string log =
      R"({"pod":"web\u001b[2J\u0007-1","msg":"forge HTTP: 3 requests in the hour ending 2026-09-30T15:00Z \u2014 h rest installation 7 l=3"})"
      "\n"
      R"({"pod":"web\u001b[2J\u0007-1","msg":"forge rate limit: lowest remaining in the hour ending 2026-09-30T15:00Z \u2014 h rest installation 7: 9 at 14:10:00Z"})"
      "\n";
  auto table = report({"--source-field", "pod"}, {.stdin_data = log});
  CHECK(table.exit_code == 0);
  CHECK(table.out.find("web\\x1b[2J\\x07-1") != std::string::npos);
  for (char c : table.out) CHECK((static_cast<unsigned char>(c) >= 0x20 || c == '\n'));
  auto json = report({"--source-field", "pod", "--format", "json"}, {.stdin_data = log});
  CHECK(json.out.find(R"("sources":["web\u001b[2J\u0007-1"])") != std::string::npos);
}

TEST_CASE("lanes lines: two replicas' savings and waits summed per hour and lane, in every format") {
  const std::vector<std::string> logs = {fixture("lanes-a.log"), fixture("lanes-b.log")};
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.end(), logs.begin(), logs.end());
    auto r = report(args);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    return r.out;
  };
  CHECK(run({"--format", "csv"}) ==
        "hour_ending,requests,replicas,partial,lowest_remaining,lowest_at,limit,over_limit,exhausted_at,"
        "lane:board,lane:sweeper,"
        "revalidated:board,coalesced:board,paused_ms:board,paced_ms:board,spaced_ms:board,"
        "revalidated:sweeper,coalesced:sweeper,paused_ms:sweeper,paced_ms:sweeper,spaced_ms:sweeper\n"
        "2026-09-30T15:00Z,430,2,false,,,,false,,30,400,0,4,1500,0,0,370,2,0,90000,2000\n");
  const std::string json = run({"--format", "json"});
  CHECK(json.find(R"(,"lanes_economy":[)"
                  R"({"host":"api.github.com","api":"rest","lane":"board","revalidated":0,"coalesced":4,)"
                  R"("paused_ms":1500,"paced_ms":0,"spaced_ms":0},)"
                  R"({"host":"api.github.com","api":"rest","lane":"sweeper","revalidated":370,"coalesced":2,)"
                  R"("paused_ms":0,"paced_ms":90000,"spaced_ms":2000}],"exhausted":false)") != std::string::npos);
  const std::string table = run({});
  CHECK(table.find(
            "\nby lane: what a cache spared, and time waited (ms)\n"
            "HOUR ENDING                  HOST   API     LANE  REVALIDATED  COALESCED  PAUSED MS  PACED MS  SPACED MS\n"
            "2026-09-30T15:00Z  api.github.com  rest    board            -          4       1500         -          -\n"
            "2026-09-30T15:00Z  api.github.com  rest  sweeper          370          2          -     90000       2000\n"
            "\nby installation\n") != std::string::npos);
  const std::string html = run({"--html", "-"});
  CHECK(html.find("<td>sweeper</td><td class=n>370</td><td class=n>2</td><td class=n>0</td><td class=n>90000</td>"
                  "<td class=n>2000</td>") != std::string::npos);
  // --lane keeps only that lane's entries of the lanes lines.
  CHECK(run({"--format", "csv", "--lane", "board"}).find("revalidated:sweeper") == std::string::npos);
}
