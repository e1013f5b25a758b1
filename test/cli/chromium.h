// chromium.h — a report page in a real browser: headless Chromium (Debian
// `chromium`) renders it to a screenshot or dumps the DOM it built.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "forgemeter_bin.h"

namespace fmtest {

struct Image {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;                                         // 3 bytes a pixel
  bool is(std::uint32_t x, std::uint32_t y, std::uint32_t color) const;  // color: 0xRRGGBB
};

// Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes).
Image decode_png(const std::string& png);

// Skips the test (true) when there is no browser and FORGEMETER_SKIP_BROWSER=1 says that is fine.
bool no_browser();

// The page rendered at 1000x800 (a fresh profile under `dir` each call).
Image screenshot(const TempDir& dir, const std::string& page);
// The DOM Chromium built from the page (--dump-dom).
std::string dump_dom(const TempDir& dir, const std::string& page);

// The value of attribute `name` in the tag that begins at `tag` of `html` ("" when absent).
std::string attribute(const std::string& html, std::size_t tag, const std::string& name);
double number(const std::string& html, std::size_t tag, const std::string& name);
// Where each tag that begins with `open` (e.g. `<rect class="seg"`) begins.
std::vector<std::size_t> tags(const std::string& html, const std::string& open);
// The text of the element that begins at `tag`, its child tags left out.
std::string text_of(const std::string& html, std::size_t tag);

}  // namespace fmtest
