// The report chart's values, as headless Chromium renders them, against
// logs written here with known sums: bar heights in proportion to each
// hour's requests (in the DOM and in the pixels), hours without lines kept as
// empty slots, dated labels on an axis that spans days, a partial hour
// outlined without hiding that it was exhausted, lane colours that follow the
// lane's name from one report to the next (`other` grey).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "chromium.h"

using namespace fmtest;

namespace {

const std::string kDash = " \xe2\x80\x94 ";

// A count line of `lanes` (lane=n, …) for installation 101 on api.github.com.
std::string count_line(const std::string& hour, const std::vector<std::pair<std::string, int>>& lanes,
                       const std::string& note = "") {
  int total = 0;
  std::string entries;
  for (const auto& [lane, n] : lanes) {
    total += n;
    entries += (entries.empty() ? "" : ", ") + std::string("api.github.com rest installation 101 ") + lane + "=" +
               std::to_string(n);
  }
  return "forge HTTP: " + std::to_string(total) + " requests in the hour ending " + hour + note + kDash + entries +
         "\n";
}

// The page `forgemeter report --html` makes of `log`.
std::string report_page(const TempDir& dir, const std::string& name, const std::string& log) {
  const std::string path = dir.file(name + ".log"), page = dir.file(name + ".html");
  write_file(path, log);
  const auto r = run_process({forgemeter_bin(), "report", "--html", page, path});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return page;
}

// The longest run of `color` down column x of the image.
int longest_run(const Image& img, std::uint32_t x, std::uint32_t color) {
  int best = 0, run = 0;
  for (std::uint32_t y = 0; y < img.height; ++y) {
    run = img.is(x, y, color) ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

// Lane -> fill of its bar segments, every one checked to be the same.
std::map<std::string, std::string> lane_fills(const std::string& dom) {
  std::map<std::string, std::string> fills;
  for (std::size_t seg : tags(dom, R"(<rect class="seg")")) {
    const std::string lane = attribute(dom, seg, "data-lane"), fill = attribute(dom, seg, "fill");
    CHECK_MESSAGE(fills.emplace(lane, fill).first->second == fill, lane << " drawn in two colours");
  }
  return fills;
}

}  // namespace

TEST_CASE("chart values: bar heights follow the hourly sums; a 6-hour gap keeps 6 slots; a 54-hour axis is dated") {
  if (no_browser()) return;
  TempDir dir;
  // Hours ending 2026-09-30T22:00Z .. 2026-10-03T03:00Z: 54 slots, 5 with lines, one lane.
  const std::vector<std::pair<std::string, int>> hours{{"2026-09-30T22:00Z", 1000},
                                                       {"2026-09-30T23:00Z", 2500},
                                                       {"2026-10-01T00:00Z", 4000},
                                                       {"2026-10-01T07:00Z", 500},
                                                       {"2026-10-03T03:00Z", 3000}};
  std::string log;
  for (const auto& [hour, n] : hours) log += count_line(hour, {{"sweeper", n}});
  const std::string page = report_page(dir, "values", log);
  const std::string dom = dump_dom(dir, page);

  const auto bars = tags(dom, R"(<g class="bar")");
  REQUIRE(bars.size() == hours.size());
  const std::vector<int> slots{0, 1, 2, 9, 53};
  const auto segs = tags(dom, R"(<rect class="seg")");
  REQUIRE(segs.size() == hours.size());
  const double per_request = number(dom, segs[2], "height") / 4000;
  for (std::size_t i = 0; i < hours.size(); ++i) {
    CAPTURE(hours[i].first);
    CHECK(attribute(dom, bars[i], "data-hour") == hours[i].first);
    CHECK(number(dom, bars[i], "data-slot") == slots[i]);
    CHECK(number(dom, bars[i], "data-rest") == hours[i].second);
    CHECK(attribute(dom, segs[i], "data-hour") == hours[i].first);
    CHECK(attribute(dom, segs[i], "data-lane") == "sweeper");
    CHECK(number(dom, segs[i], "data-count") == hours[i].second);
    CHECK(number(dom, segs[i], "height") == doctest::Approx(hours[i].second * per_request).epsilon(0.001));
    CHECK(number(dom, segs[i], "y") + number(dom, segs[i], "height") ==
          doctest::Approx(number(dom, segs[0], "y") + number(dom, segs[0], "height")));  // one baseline
  }
  // The gap after 00:00Z: six empty slots, each its hour, as wide as a bar's slot.
  const auto empties = tags(dom, R"(<rect class="empty")");
  CHECK(empties.size() == 54 - hours.size());
  for (int k = 1; k <= 6; ++k) {
    const std::size_t e = dom.find(R"(<rect class="empty" data-slot=")" + std::to_string(2 + k) + "\"");
    REQUIRE(e != std::string::npos);
    CHECK(attribute(dom, e, "data-hour") == "2026-10-01T0" + std::to_string(k) + ":00Z");
  }
  const double slot_w = number(dom, empties[0], "width");
  CHECK(number(dom, segs[3], "x") - number(dom, segs[2], "x") == doctest::Approx(7 * slot_w));

  // Every label differs (each carries its date), and each day is named.
  std::set<std::string> labels;
  for (std::size_t at : tags(dom, R"(<text class="hour-label")")) {
    const std::string text = text_of(dom, at);
    CHECK_MESSAGE(labels.insert(text).second, "label twice: " << text);
  }
  CHECK(labels.size() >= 6);
  for (const char* day : {"Sep 30", "Oct 1", "Oct 2", "Oct 3"})
    CHECK(std::any_of(labels.begin(), labels.end(), [&](const std::string& l) { return l.ends_with(day); }));

  // In the pixels: each bar's tallest run of the lane's colour, in proportion to its hour's requests.
  const std::string fill = attribute(dom, segs[0], "fill");
  const auto color = static_cast<std::uint32_t>(std::stoul(fill.substr(1), nullptr, 16));
  const Image img = screenshot(dir, page);
  // Where the SVG sits on the page: the shift that puts every bar's centre on its colour.
  std::vector<int> fits;
  for (int dx = 0; dx < 120; ++dx)
    if (std::all_of(segs.begin(), segs.end(), [&](std::size_t s) {
          const double cx = number(dom, s, "x") + number(dom, s, "width") / 2 + dx;
          return cx < img.width && longest_run(img, static_cast<std::uint32_t>(cx), color) >= 20;
        }))
      fits.push_back(dx);
  REQUIRE(!fits.empty());
  const int dx = fits[fits.size() / 2];
  const auto pixels = [&](std::size_t i) {
    return longest_run(
        img, static_cast<std::uint32_t>(number(dom, segs[i], "x") + number(dom, segs[i], "width") / 2 + dx), color);
  };
  const double px_per_request = pixels(2) / 4000.0;
  for (std::size_t i = 0; i < hours.size(); ++i) {
    CAPTURE(hours[i].first);
    CHECK(std::abs(pixels(i) - hours[i].second * px_per_request) <= 2.0);
  }
}

TEST_CASE("chart: a partial hour that ran out is outlined, drawn in full, and still marked exhausted") {
  if (no_browser()) return;
  TempDir dir;
  const std::string log =
      count_line("2026-09-30T10:00Z", {{"merge-gate-sweeper", 5000}, {"other", 200}}, " (counted from 09:00:02Z)") +
      "forge rate limit: lowest remaining in the hour ending 2026-09-30T10:00Z (counted from 09:00:02Z)" + kDash +
      "api.github.com rest installation 101: 0 of 5000 at 09:41:07Z (resets 10:00:00Z)\n" +
      count_line("2026-09-30T11:00Z", {{"merge-gate-sweeper", 1700}, {"other", 200}});
  const std::string page = report_page(dir, "partial", log);
  const std::string dom = dump_dom(dir, page);
  const std::size_t bar = dom.find(R"(<g class="bar" data-hour="2026-09-30T10:00Z")");
  REQUIRE(bar != std::string::npos);
  const std::size_t bar_end = dom.find("</g>", bar);
  CHECK(attribute(dom, bar, "data-partial") == "true");
  const std::size_t outline = dom.find(R"(<rect class="partial")", bar);
  REQUIRE(outline < bar_end);
  CHECK(attribute(dom, outline, "fill") == "none");
  CHECK(outline < dom.find(R"(<rect class="seg")", bar));  // under the bar, not over it
  for (std::size_t seg : tags(dom.substr(bar, bar_end - bar), R"(<rect class="seg")"))
    CHECK(attribute(dom, bar + seg, "fill-opacity").empty());
  const std::size_t mark = dom.find(R"(<g class="exhausted">)");
  REQUIRE(mark != std::string::npos);
  CHECK(text_of(dom, mark).find("09:41:07Z") != std::string::npos);
  CHECK(mark > dom.find(R"(<path class="budget")"));  // drawn over the budget line
  CHECK(attribute(dom, dom.find(R"(<g class="bar" data-hour="2026-09-30T11:00Z")"), "data-partial") == "false");

  // Painted: the sweeper's full colour fills its bars, the red mark is there.
  const auto color =
      static_cast<std::uint32_t>(std::stoul(lane_fills(dom).at("merge-gate-sweeper").substr(1), nullptr, 16));
  const Image img = screenshot(dir, page);
  std::size_t sweeper = 0, red = 0;
  for (std::uint32_t y = 0; y < img.height; ++y)
    for (std::uint32_t x = 0; x < img.width; ++x) {
      sweeper += img.is(x, y, color);
      red += img.is(x, y, 0xd62828);
    }
  MESSAGE("sweeper pixels " << sweeper << ", exhausted red " << red);
  CHECK(sweeper > 5000);
  CHECK(red > 40);
}

TEST_CASE("chart: a lane keeps its colour across reports with other lanes; `other` is always grey") {
  if (no_browser()) return;
  TempDir dir;
  const std::string a = count_line("2026-09-30T10:00Z", {{"alpha", 300}, {"sweeper", 200}, {"other", 100}});
  const std::string b = count_line("2026-09-30T10:00Z", {{"zeta", 400}, {"beta", 300}, {"sweeper", 200}}) +
                        count_line("2026-09-30T11:00Z", {{"other", 50}, {"deploy", 40}});
  const std::string dom_a = dump_dom(dir, report_page(dir, "a", a)), dom_b = dump_dom(dir, report_page(dir, "b", b));
  const auto fills_a = lane_fills(dom_a), fills_b = lane_fills(dom_b);
  CHECK(fills_a.size() == 3);
  CHECK(fills_b.size() == 5);
  CHECK(fills_a.at("sweeper") == fills_b.at("sweeper"));
  CHECK(fills_a.at("other") == "#9aa5b1");
  CHECK(fills_b.at("other") == "#9aa5b1");
  for (const auto* fills : {&fills_a, &fills_b})
    for (const auto& [lane, fill] : *fills) {
      CAPTURE(lane);
      if (lane != "other") CHECK(fill != "#9aa5b1");
      // The legend's swatch is the bars' colour.
      const auto& dom = fills == &fills_a ? dom_a : dom_b;
      const std::size_t swatch = dom.find(R"(data-legend-lane=")" + lane + "\"");
      REQUIRE(swatch != std::string::npos);
      CHECK(attribute(dom, dom.rfind('<', swatch), "fill") == fill);
    }
}
