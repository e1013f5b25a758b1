// The report page in a real browser: headless Chromium (Debian `chromium`)
// renders it; the screenshot is not blank (it holds the lanes' bar colours)
// and the rendered DOM has one bar per hour; a GraphQL-heavy hour's REST bar
// is the one held against the core line, its GraphQL bar drawn beside it.
#include <doctest/doctest.h>

#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "process.h"

using namespace forgemeter::test;

namespace {

struct Image {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // 3 bytes a pixel
};

std::uint32_t be32(const std::string& s, std::size_t at) {
  return (std::uint32_t(std::uint8_t(s[at])) << 24) | (std::uint32_t(std::uint8_t(s[at + 1])) << 16) |
         (std::uint32_t(std::uint8_t(s[at + 2])) << 8) | std::uint32_t(std::uint8_t(s[at + 3]));
}

// Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes).
Image decode_png(const std::string& png) {
  Image img;
  REQUIRE(png.size() > 33);
  REQUIRE(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  std::string idat;
  int color = 0;
  for (std::size_t at = 8; at + 8 <= png.size();) {
    std::uint32_t len = be32(png, at);
    std::string type = png.substr(at + 4, 4);
    if (type == "IHDR") {
      img.width = be32(png, at + 8);
      img.height = be32(png, at + 12);
      REQUIRE(png[at + 16] == 8);
      color = png[at + 17];
      REQUIRE(png[at + 20] == 0);
    } else if (type == "IDAT") {
      idat += png.substr(at + 8, len);
    }
    at += 12 + len;
  }
  REQUIRE((color == 2 || color == 6));
  const std::size_t bpp = color == 6 ? 4 : 3, stride = img.width * bpp;
  std::vector<std::uint8_t> raw((stride + 1) * img.height);
  uLongf raw_len = raw.size();
  REQUIRE(uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) == Z_OK);
  std::vector<std::uint8_t> prev(stride, 0), cur(stride);
  for (std::uint32_t y = 0; y < img.height; ++y) {
    const std::uint8_t* line = raw.data() + y * (stride + 1);
    int filter = line[0];
    for (std::size_t x = 0; x < stride; ++x) {
      int a = x >= bpp ? cur[x - bpp] : 0, b = prev[x], c = x >= bpp ? prev[x - bpp] : 0, v = line[x + 1];
      int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
      int pred = filter == 1   ? a
                 : filter == 2 ? b
                 : filter == 3 ? (a + b) / 2
                 : filter == 4 ? (pa <= pb && pa <= pc ? a
                                  : pb <= pc           ? b
                                                       : c)
                               : 0;
      cur[x] = static_cast<std::uint8_t>(v + pred);
    }
    for (std::uint32_t x = 0; x < img.width; ++x)
      for (int k = 0; k < 3; ++k) img.rgb.push_back(cur[x * bpp + k]);
    prev = cur;
  }
  return img;
}

// Skips the test (true) when there is no browser and FORGEMETER_SKIP_BROWSER=1 says that is fine.
bool no_browser() {
  if (access("/usr/bin/chromium", X_OK) == 0) return false;
  const char* skip = std::getenv("FORGEMETER_SKIP_BROWSER");
  REQUIRE_MESSAGE((skip != nullptr && std::string(skip) == "1"),
                  "no /usr/bin/chromium: install the Debian package chromium, or set FORGEMETER_SKIP_BROWSER=1");
  MESSAGE("SKIPPED: FORGEMETER_SKIP_BROWSER=1, the page was not rendered");
  return true;
}

// The value of attribute `name` in the tag that begins at `tag` of `html`.
std::string attribute(const std::string& html, std::size_t tag, const std::string& name) {
  const std::size_t end = html.find('>', tag);
  const std::size_t at = html.find(" " + name + "=\"", tag);
  if (at == std::string::npos || at > end) return {};
  const std::size_t from = at + name.size() + 3;
  return html.substr(from, html.find('"', from) - from);
}

std::vector<std::string> chromium(const std::string& user_dir) {
  return {"/usr/bin/chromium",
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--user-data-dir=" + user_dir};
}

}  // namespace

TEST_CASE("the report page renders in headless Chromium: chart drawn, one bar per hour") {
  if (no_browser()) return;
  TempDir dir;
  const std::string page = dir.file("report.html"), shot = dir.file("shot.png");
  const std::string fixtures = FIXTURES;
  auto r = run_process({forgemeter_bin(), "report", "--html", page, fixtures + "/replica-a.log",
                        fixtures + "/replica-b.json", fixtures + "/replica-c.log.gz"});
  REQUIRE(r.exit_code == 0);

  auto shoot = chromium(dir.file("profile-1"));
  shoot.insert(shoot.end(), {"--screenshot=" + shot, "--window-size=1000,800", "file://" + page});
  auto s = run_process(shoot, {.timeout = std::chrono::seconds(120)});
  INFO(s.err);
  REQUIRE(s.exit_code == 0);
  Image img = decode_png(read_file(shot));
  CHECK(img.width == 1000);
  CHECK(img.height == 800);
  // The merge-gate-sweeper bars are drawn in #2f6fdf (the palette's second colour); and the page is not one colour.
  std::size_t sweeper = 0, white = 0;
  for (std::size_t i = 0; i + 2 < img.rgb.size(); i += 3) {
    sweeper += img.rgb[i] == 0x2f && img.rgb[i + 1] == 0x6f && img.rgb[i + 2] == 0xdf;
    white += img.rgb[i] == 0xff && img.rgb[i + 1] == 0xff && img.rgb[i + 2] == 0xff;
  }
  MESSAGE("sweeper-coloured pixels: " << sweeper << ", white: " << white << " of " << img.rgb.size() / 3);
  CHECK(sweeper > 1000);
  CHECK(white < img.rgb.size() / 3);

  auto dump = chromium(dir.file("profile-2"));
  dump.insert(dump.end(), {"--dump-dom", "file://" + page});
  auto d = run_process(dump, {.timeout = std::chrono::seconds(120)});
  REQUIRE(d.exit_code == 0);
  std::size_t bars = 0;
  for (auto at = d.out.find("<g class=\"bar\""); at != std::string::npos; at = d.out.find("<g class=\"bar\"", at + 1))
    ++bars;
  CHECK(bars == 2);  // two hours in the fixture
  CHECK(d.out.find("class=\"budget\"") != std::string::npos);
  CHECK(d.out.find("class=\"exhausted\"") != std::string::npos);
}

TEST_CASE("a GraphQL-heavy hour: the REST bar under the core line, the GraphQL bar hatched beside it") {
  if (no_browser()) return;
  TempDir dir;
  const std::string page = dir.file("report.html"), shot = dir.file("shot.png");
  const std::string fixtures = FIXTURES;
  REQUIRE(run_process({forgemeter_bin(), "report", "--html", page, fixtures + "/resources-a.log",
                       fixtures + "/resources-b.log"})
              .exit_code == 0);

  auto dump = chromium(dir.file("profile-1"));
  dump.insert(dump.end(), {"--dump-dom", "file://" + page});
  auto d = run_process(dump, {.timeout = std::chrono::seconds(120)});
  REQUIRE(d.exit_code == 0);
  // The hour ending 17:00Z: 2500 REST + 3800 GraphQL requests = 6300, more than core's 5000, yet core had 3050 left.
  const std::size_t bar = d.out.find(R"(<g class="bar" data-hour="2026-09-30T17:00Z")");
  REQUIRE(bar != std::string::npos);
  const auto num = [&](const char* name) { return std::stod(attribute(d.out, bar, name)); };
  CHECK(num("data-requests") == 6300);
  CHECK(num("data-rest") == 2500);
  CHECK(num("data-graphql") == 3800);
  CHECK(num("data-core-limit") == 5000);
  CHECK(num("data-rest-y") > num("data-limit-y"));  // the REST bar's top is drawn below the line (y grows down)
  const std::size_t bar_end = d.out.find("</g>", bar);
  const std::size_t gql = d.out.find(R"(<rect class="graphql")", bar);
  REQUIRE(gql < bar_end);
  CHECK(std::stod(attribute(d.out, gql, "y")) > num("data-limit-y"));  // GraphQL is drawn apart, below the line too
  CHECK(d.out.find(R"(<g class="exhausted">)") != std::string::npos);  // the core hour
  CHECK(d.out.find(R"(<g class="limited">)") != std::string::npos);    // the search hour

  // The hatch is painted: purple pixels (its stroke #5b3f8c, blended by antialiasing with
  // its #ece6f5 ground); no other colour of the page has red and blue both well above green.
  auto shoot = chromium(dir.file("profile-2"));
  shoot.insert(shoot.end(), {"--screenshot=" + shot, "--window-size=1000,800", "file://" + page});
  auto s = run_process(shoot, {.timeout = std::chrono::seconds(120)});
  INFO(s.err);
  REQUIRE(s.exit_code == 0);
  Image img = decode_png(read_file(shot));
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

  auto dump = chromium(dir.file("profile-1"));
  dump.insert(dump.end(), {"--dump-dom", "file://" + page});
  auto d = run_process(dump, {.timeout = std::chrono::seconds(120)});
  REQUIRE(d.exit_code == 0);
  const std::size_t table = d.out.find(R"(<table class="replicas">)");
  REQUIRE(table != std::string::npos);
  CHECK(table > d.out.find("</svg>"));  // under the chart
  const std::string body = d.out.substr(table, d.out.find("</table>", table) - table);
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
  CHECK(d.out.find(R"(<table class="replica-hours">)") != std::string::npos);
}
