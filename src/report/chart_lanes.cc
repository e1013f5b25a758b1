// A lane's colour from its name alone: the same lane is the same colour in
// every report, whatever other lanes the report holds.
#include <array>
#include <cstdint>

#include "report/chart.h"

namespace forgemeter::report {

namespace {

// Distinguishable on white and from each other; none grey (`other`), red
// (the core line, the exhausted mark), amber (a per-minute limit) or the
// GraphQL hatch's purple.
constexpr std::array<std::string_view, 10> kPalette{"#2a9d6f", "#c94f7c", "#3fa9c9", "#7a4b2a", "#1b3f7a",
                                                    "#2f6fdf", "#b5a22a", "#7fb23a", "#e0892b", "#e377c2"};

// FNV-1a: stable across platforms and releases (std::hash is neither).
std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

std::string lane_color(std::string_view lane) {
  if (lane == "other") return std::string(kOtherColor);
  return std::string(kPalette[fnv1a(lane) % kPalette.size()]);
}

}  // namespace forgemeter::report
