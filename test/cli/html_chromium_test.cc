// The report page in a real browser: headless Chromium (Debian `chromium`)
// renders it; the screenshot is not blank (it holds the lanes' bar colours)
// and the rendered DOM has one bar per hour; a GraphQL-heavy hour's REST bar
// is the one held against the core line, its GraphQL bar drawn beside it;
// each resource has its budget line. (The chart's values: html_chart_test.cc.)
#include <doctest/doctest.h>

#include <set>

#include "chromium.h"

using namespace fmtest;

TEST_CASE("the report page renders in headless Chromium: chart drawn, one bar per hour") {
  if (no_browser()) return;
  TempDir dir;
  const std::string page = dir.file("report.html");
  const std::string fixtures = FIXTURES;
  auto r = run_process({forgemeter_bin(), "report", "--html", page, fixtures + "/replica-a.log",
                        fixtures + "/replica-b.json", fixtures + "/replica-c.log.gz"});
  REQUIRE(r.exit_code == 0);

  const std::string dom = dump_dom(dir, page);
  // The merge-gate-sweeper bars are drawn in its lane's colour; and the page is not one colour.
  const auto sweeper_seg = dom.find(R"(data-lane="merge-gate-sweeper")");
  REQUIRE(sweeper_seg != std::string::npos);
  const std::string fill = attribute(dom, dom.rfind('<', sweeper_seg), "fill");
  REQUIRE(fill.size() == 7);
  const auto color = static_cast<std::uint32_t>(std::stoul(fill.substr(1), nullptr, 16));
  Image img = screenshot(dir, page);
  std::size_t sweeper = 0, white = 0;
  for (std::uint32_t y = 0; y < img.height; ++y)
    for (std::uint32_t x = 0; x < img.width; ++x) {
      sweeper += img.is(x, y, color);
      white += img.is(x, y, 0xffffff);
    }
  MESSAGE("sweeper-coloured (" << fill << ") pixels: " << sweeper << ", white: " << white);
  CHECK(sweeper > 1000);
  CHECK(white < std::size_t{img.width} * img.height);

  CHECK(tags(dom, R"(<g class="bar")").size() == 2);  // two hours in the fixture
  CHECK(dom.find(R"(<path class="budget" data-resource="core")") != std::string::npos);
  CHECK(dom.find(R"(class="exhausted")") != std::string::npos);
}

TEST_CASE("a GraphQL-heavy hour: the REST bar under the core line, the GraphQL bar hatched beside it") {
  if (no_browser()) return;
  TempDir dir;
  const std::string page = dir.file("report.html");
  const std::string fixtures = FIXTURES;
  REQUIRE(run_process({forgemeter_bin(), "report", "--html", page, fixtures + "/resources-a.log",
                       fixtures + "/resources-b.log"})
              .exit_code == 0);

  const std::string dom = dump_dom(dir, page);
  // The hour ending 17:00Z: 2500 REST + 3800 GraphQL requests = 6300, more than core's 5000, yet core had 3050 left.
  const std::size_t bar = dom.find(R"(<g class="bar" data-hour="2026-09-30T17:00Z")");
  REQUIRE(bar != std::string::npos);
  const auto num = [&](const char* name) { return std::stod(attribute(dom, bar, name)); };
  CHECK(num("data-requests") == 6300);
  CHECK(num("data-rest") == 2500);
  CHECK(num("data-graphql") == 3800);
  CHECK(num("data-core-limit") == 5000);
  CHECK(num("data-rest-y") > num("data-limit-y"));  // the REST bar's top is drawn below the line (y grows down)
  const std::size_t bar_end = dom.find("</g>", bar);
  const std::size_t gql = dom.find(R"(<rect class="graphql")", bar);
  REQUIRE(gql < bar_end);
  CHECK(std::stod(attribute(dom, gql, "y")) > num("data-limit-y"));  // GraphQL is drawn apart, below the line too
  CHECK(dom.find(R"(<g class="exhausted">)") != std::string::npos);  // the core hour
  CHECK(dom.find(R"(<g class="limited">)") != std::string::npos);    // the search hour
  // A budget line per resource: the hourly limits over the bars, every resource's lowest left under them.
  CHECK(dom.find(R"(<path class="budget" data-resource="core")") != std::string::npos);
  CHECK(dom.find(R"(<path class="budget" data-resource="graphql")") != std::string::npos);
  std::set<std::string> resources;
  for (std::size_t at : tags(dom, R"(<path class="left")")) resources.insert(attribute(dom, at, "data-resource"));
  CHECK(resources == std::set<std::string>{"code_search", "core", "graphql", "search"});
  // The search bucket spent in the hour ending 15:00Z: 0 of 30.
  CHECK(dom.find(R"(<circle data-hour="2026-09-30T15:00Z" data-resource="search" data-lowest="0" data-limit="30")") !=
        std::string::npos);

  // The hatch is painted: purple pixels (its stroke #5b3f8c, blended by antialiasing with
  // its #ece6f5 ground); no other colour of the page has red and blue both well above green.
  Image img = screenshot(dir, page);
  std::size_t hatch = 0;
  for (std::size_t i = 0; i + 2 < img.rgb.size(); i += 3)
    hatch += img.rgb[i] >= img.rgb[i + 1] + 15 && img.rgb[i + 2] >= img.rgb[i + 1] + 40 && img.rgb[i + 2] > img.rgb[i];
  MESSAGE("hatch-coloured pixels: " << hatch);
  CHECK(hatch > 600);  // the legend's swatch alone has at most 144
}

TEST_CASE("the per-replica table under the chart: each replica's totals, as the browser reads them") {
  if (no_browser()) return;
  TempDir dir;
  const std::string page = dir.file("report.html");
  const std::string fixtures = FIXTURES;
  const std::vector<std::string> files = {fixtures + "/replica-a.log", fixtures + "/replica-b.json",
                                          fixtures + "/replica-c.log.gz"};
  std::vector<std::string> args = {forgemeter_bin(), "report", "--html", page};
  args.insert(args.end(), files.begin(), files.end());
  REQUIRE(run_process(args).exit_code == 0);

  const std::string dom = dump_dom(dir, page);
  const std::size_t table = dom.find(R"(<table class="replicas">)");
  REQUIRE(table != std::string::npos);
  CHECK(table > dom.find("</svg>"));  // under the chart
  const std::string body = dom.substr(table, dom.find("</table>", table) - table);
  // hours, requests, then the lanes (other, merge-gate-sweeper): replica-a 700+300, b 650+20, c 90.
  const std::vector<std::string> want = {
      "<td>" + files[0] +
          R"(</td><td class="n">2</td><td class="n">1000</td><td class="n">110</td><td class="n">890</td>)",
      "<td>" + files[1] +
          R"(</td><td class="n">2</td><td class="n">670</td><td class="n">40</td><td class="n">630</td>)",
      "<td>" + files[2] +
          R"(</td><td class="n">1</td><td class="n">90</td><td class="n">10</td><td class="n">80</td>)"};
  for (const auto& row : want) {
    CAPTURE(row);
    CHECK(body.find(row) != std::string::npos);
  }
  CHECK(dom.find(R"(<table class="replica-hours">)") != std::string::npos);
}
