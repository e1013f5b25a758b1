// A log that changes while `report` reads it: a plain file that shrinks (as
// logrotate's copytruncate does) or is renamed over is an error naming the
// file and the byte, never partial totals; the same file named twice (a path
// and a link to it) is read once, with a warning.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "report/errors.h"
#include "report/file_input.h"
#include "report/fleet.h"
#include "report/input.h"
#include "report/scanner.h"

using namespace forgemeter::report;

namespace {

struct Dir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("fm-input-change-" + std::to_string(::getpid()));
  Dir() { std::filesystem::create_directories(path); }
  ~Dir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name, const std::string& text) const {
    const auto p = (path / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

const std::string kLine =
    "forge HTTP: 2 requests in the hour ending 2026-09-30T15:00Z \u2014 api.github.com rest installation 1 l=2\n";

std::string lines(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += kLine;
  return out;
}

std::string failure_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ReportError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a file truncated after it was opened: the read fails naming the file and the byte") {
  Dir dir;
  const std::string text = lines(40000);  // ~4 MB: more than one block
  const auto path = dir.file("app.log", text);
  auto reader = LogReader::open(path);
  REQUIRE(reader->plain_file());
  REQUIRE(::truncate(path.c_str(), 1000) == 0);  // copytruncate, at the worst moment
  const auto why = failure_of([&] { reader->for_each_marked("forge ", [](std::string_view) {}, {}); });
  CHECK(why.find("'" + path + "' shrank while it was read: it ends at byte 1000") != std::string::npos);
  CHECK(why.find("held " + std::to_string(text.size()) + " bytes") != std::string::npos);
}

TEST_CASE("a file renamed over while it was read: an error, not the old file's totals as if current") {
  Dir dir;
  const auto path = dir.file("app.log", lines(10));
  const auto newer = dir.file("app.log.new", lines(3));
  auto reader = LogReader::open(path);
  reader->for_each_marked("forge ", [](std::string_view) {}, {});
  std::filesystem::rename(newer, path);
  const auto why = failure_of([&] { reader->check_still_named(1234); });
  CHECK(why.find("'" + path + "' was replaced while it was read (noticed at byte 1234") != std::string::npos);
  auto fresh = LogReader::open(path);
  CHECK_NOTHROW(fresh->check_still_named(0));
}

TEST_CASE("the same file named twice (a path and a link to it) is read once, with a warning") {
  Dir dir;
  const auto path = dir.file("app.log", lines(5));
  const auto link = (dir.path / "current.log").string();
  std::filesystem::create_symlink(path, link);
  for (unsigned threads : {1u, 3u}) {
    CAPTURE(threads);
    Fleet fleet;
    Scanner scanner(fleet, ScanOptions{.threads = threads});
    scanner.scan_inputs({path, link, path});
    CHECK(fleet.lines() == 5);
    REQUIRE(fleet.hours().size() == 1);
    CHECK(fleet.hours()[0].requests == 10);
    REQUIRE(scanner.stats().warnings.size() == 2);
    CHECK(scanner.stats().warnings[0] == "'" + link + "' is the same file as '" + path + "': read once");
    CHECK(scanner.stats().problems.empty());
  }
}

TEST_CASE("hour sums never wrap: past 2^64-1 the fleet names the hour") {
  Fleet fleet;
  Scanner scanner(fleet, {});
  const std::string big =
      "forge HTTP: 18446744073709551615 requests in the hour ending 2026-09-30T16:00Z \u2014 h rest "
      "l=18446744073709551615";
  scanner.scan_line_from(big, "a");
  CHECK_FALSE(fleet.overflowed());
  scanner.scan_line_from(kLine.substr(0, kLine.size() - 1), "a");  // another hour: no sum passes
  CHECK_FALSE(fleet.overflowed());
  scanner.scan_line_from("forge HTTP: 1 requests in the hour ending 2026-09-30T16:00Z \u2014 h rest l=1", "b");
  REQUIRE(fleet.overflowed());
  CHECK(*fleet.overflowed() ==
        Instant(std::chrono::sys_days{std::chrono::year{2026} / 9 / 30} + std::chrono::hours(16)));
}
