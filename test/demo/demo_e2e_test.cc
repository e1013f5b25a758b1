// forgemeter-demo as a process: exits 0, its fleet report agrees with the
// forge's own counts exactly, the elected hour costs about 1/R, and a burst of
// searches is reported as limited, not as the hour's budget running out.
#include <doctest/doctest.h>

#include <cstdio>

#include "support/process.h"

using namespace forgemeter::test;

TEST_CASE("demo: report == forge, budget out in hour 1, sweep cost ratio about R") {
  TempDir dir;
  // 10 replicas as in the README; 1200x so two simulated hours take ~6 s.
  auto r = run_process({FORGEMETER_DEMO_BIN, "--speed", "1200", "--html", dir.file("demo.html")},
                       {.timeout = std::chrono::seconds(240)});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("DIFFER") == std::string::npos);
  CHECK(r.out.find("hour 1         all lanes") != std::string::npos);
  CHECK(r.out.find("hour 2         all lanes") != std::string::npos);
  CHECK(r.out.find("the installation's budget ran out at 09:") != std::string::npos);
  auto at = r.out.find("sweep cost: hour 1 ");
  REQUIRE(at != std::string::npos);
  unsigned long long h1 = 0, h2 = 0;
  REQUIRE(std::sscanf(r.out.c_str() + at, "sweep cost: hour 1 %llu requests, hour 2 %llu", &h1, &h2) == 2);
  double ratio = static_cast<double>(h1) / static_cast<double>(h2);
  MESSAGE("sweep cost hour 1 / hour 2 = " << ratio);
  CHECK(ratio > 8.0);  // ~R = 10; one pass either way at the hand-over
  CHECK(ratio < 12.0);
  CHECK(h1 >= 11'700);
  CHECK(h1 <= 19'400);
  // Searches spend their own bucket: the burst in hour 2 runs it out without any false alarm.
  CHECK(r.out.find("hour 1         pr-search") != std::string::npos);
  CHECK(r.out.find("reported as limited, and the hour is not exhausted") != std::string::npos);
  // The report's row of hour 2 (the first line that begins with its hour).
  const auto row_at = r.out.find("\n2026-09-30T11:00Z");
  REQUIRE(row_at != std::string::npos);
  const std::string row = r.out.substr(row_at + 1, r.out.find('\n', row_at + 1) - row_at - 1);
  CHECK(row.find("installation 101 search limited at 10:20:") != std::string::npos);
  CHECK(row.find("EXHAUSTED") == std::string::npos);
  std::string page = read_file(dir.file("demo.html"));
  CHECK(page.find("<g class=\"bar\"") != std::string::npos);
}
