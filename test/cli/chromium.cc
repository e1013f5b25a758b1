#include "chromium.h"

#include <doctest/doctest.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "support/skips.h"

namespace fmtest {

namespace {

std::uint32_t be32(const std::string& s, std::size_t at) {
  return (std::uint32_t(std::uint8_t(s[at])) << 24) | (std::uint32_t(std::uint8_t(s[at + 1])) << 16) |
         (std::uint32_t(std::uint8_t(s[at + 2])) << 8) | std::uint32_t(std::uint8_t(s[at + 3]));
}

}  // namespace

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

bool no_browser() {
  if (access("/usr/bin/chromium", X_OK) == 0) return false;
  const char* skip = std::getenv("FORGEMETER_SKIP_BROWSER");
  REQUIRE_MESSAGE((skip != nullptr && std::string(skip) == "1"),
                  "no /usr/bin/chromium: install the Debian package chromium, or set FORGEMETER_SKIP_BROWSER=1");
  MESSAGE("SKIPPED: FORGEMETER_SKIP_BROWSER=1, the page was not rendered");
  fmtest::skipped("FORGEMETER_SKIP_BROWSER=1: the report page was not rendered");
  return true;
}

std::string attribute(const std::string& html, std::size_t tag, const std::string& name) {
  const std::size_t end = html.find('>', tag);
  const std::size_t at = html.find(" " + name + "=\"", tag);
  if (at == std::string::npos || at > end) return {};
  const std::size_t from = at + name.size() + 3;
  return html.substr(from, html.find('"', from) - from);
}

namespace {

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

std::string profile(const TempDir& dir) {
  static std::atomic<int> n{0};
  return dir.file("profile-" + std::to_string(++n));
}

}  // namespace

bool Image::is(std::uint32_t x, std::uint32_t y, std::uint32_t color) const {
  const std::size_t at = (std::size_t{y} * width + x) * 3;
  return rgb[at] == (color >> 16 & 0xff) && rgb[at + 1] == (color >> 8 & 0xff) && rgb[at + 2] == (color & 0xff);
}

Image screenshot(const TempDir& dir, const std::string& page) {
  const std::string shot = dir.file("shot.png");
  auto args = chromium(profile(dir));
  args.insert(args.end(), {"--screenshot=" + shot, "--window-size=1000,800", "file://" + page});
  auto s = run_process(args, {.timeout = std::chrono::seconds(120)});
  INFO(s.err);
  REQUIRE(s.exit_code == 0);
  Image img = decode_png(read_file(shot));
  REQUIRE(img.width == 1000);
  REQUIRE(img.height == 800);
  return img;
}

std::string dump_dom(const TempDir& dir, const std::string& page) {
  auto args = chromium(profile(dir));
  args.insert(args.end(), {"--dump-dom", "file://" + page});
  auto d = run_process(args, {.timeout = std::chrono::seconds(120)});
  INFO(d.err);
  REQUIRE(d.exit_code == 0);
  return d.out;
}

double number(const std::string& html, std::size_t tag, const std::string& name) {
  const std::string v = attribute(html, tag, name);
  REQUIRE_MESSAGE(!v.empty(), "no attribute " << name);
  return std::stod(v);
}

std::vector<std::size_t> tags(const std::string& html, const std::string& open) {
  std::vector<std::size_t> at;
  for (auto p = html.find(open); p != std::string::npos; p = html.find(open, p + 1)) at.push_back(p);
  return at;
}

std::string text_of(const std::string& html, std::size_t tag) {
  const std::string name = html.substr(tag + 1, html.find_first_of(" >", tag) - tag - 1);
  const std::size_t end = html.find("</" + name + ">", tag);
  std::string text;
  bool in_tag = false;
  for (std::size_t i = html.find('>', tag) + 1; i < end; ++i) {
    if (html[i] == '<') in_tag = true;
    if (!in_tag) text += html[i];
    if (html[i] == '>') in_tag = false;
  }
  return text;
}

}  // namespace fmtest
