// `forgemeter demo` as a process: exits 0, its fleet report agrees with the
// forge's own counts exactly, and the elected hour costs about 1/R.
#include <doctest/doctest.h>

#include <cstdio>

#include "process.h"

using namespace forgemeter::test;

TEST_CASE("demo: report == forge, budget out in hour 1, sweep cost ratio about R") {
  TempDir dir;
  // 10 replicas as in the README; 1200x so two simulated hours take ~6 s.
  auto r = run_process({forgemeter_bin(), "demo", "--speed", "1200", "--html", dir.file("demo.html")}, {.timeout = std::chrono::seconds(240)});
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
  std::string page = read_file(dir.file("demo.html"));
  CHECK(page.find("<g class=\"bar\"") != std::string::npos);
}
