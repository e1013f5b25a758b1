// The block scan every input goes through (src/report/block_scan.cc): lines that
// cross reads, pieces whose edges fall anywhere (each line read by exactly one
// piece), endless lines cut at max_line the same way whoever reads them, and
// every byte passed exactly once. Blocks and max_line are tiny here so every
// edge is crossed; the source is text in memory handing out at most a few
// bytes per read.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "report/block_scan.h"

using namespace forgemeter::report;

namespace {

class TextSource final : public ByteSource {
 public:
  TextSource(const std::string& text, std::size_t from, std::size_t most) : text_(text), at_(from), most_(most) {}
  std::size_t read(char* dst, std::size_t n) override {
    std::size_t k = std::min({n, most_, text_.size() - at_});
    text_.copy(dst, k, at_);
    at_ += k;
    return k;
  }

 private:
  const std::string& text_;
  std::size_t at_, most_;
};

struct Seen {
  std::string line;
  std::uint64_t offset;
  friend bool operator==(const Seen&, const Seen&) = default;
};

std::vector<Seen> scan(const std::string& text, std::size_t from, BlockScan o, std::size_t most,
                       std::string* passed = nullptr, std::vector<std::uint64_t>* dropped = nullptr) {
  TextSource source(text, from, most);
  std::vector<char> buffer;
  std::vector<Seen> seen;
  OnPassed on_passed;
  if (passed != nullptr) on_passed = [&](const char* b, const char* e) { passed->append(b, e); };
  scan_blocks(
      source, "forge ", o, buffer,
      [&](std::string_view line, std::uint64_t offset) {
        seen.push_back({std::string(line), from + offset});
      },
      on_passed,
      [&](std::uint64_t offset, std::string_view) {
        if (dropped != nullptr) dropped->push_back(from + offset);
      });
  return seen;
}

// What the chunked report does: pieces [k * size, (k + 1) * size), each read
// from the byte before it, dropping through the first '\n'.
std::vector<Seen> scan_in_pieces(const std::string& text, std::size_t size, BlockScan o, std::size_t most) {
  std::vector<Seen> all;
  for (std::size_t begin = 0; begin < text.size(); begin += size) {
    const std::size_t from = begin == 0 ? 0 : begin - 1;
    o.skip_partial_first = begin != 0;
    o.stop = begin + size >= text.size() ? std::numeric_limits<std::uint64_t>::max() : begin + size - from;
    auto part = scan(text, from, o, most);
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

std::string sample() {
  std::mt19937 rng(3);
  std::string text;
  for (int i = 0; i < 60; ++i) {
    std::string filler(rng() % 23, 'x');
    switch (rng() % 5) {
      case 0: text += "noise " + filler + "\n"; break;
      case 1: text += "a forge HTTP: " + std::to_string(i) + filler + "\n"; break;
      case 2: text += "forge at the start " + std::to_string(i) + "\r\n"; break;  // CRLF: the '\r' is trimmed
      case 3: text += "\n"; break;
      default: text += filler + " forge " + filler + " forge twice\n";
    }
  }
  return text + "forge at the end: no newline";
}

}  // namespace

TEST_CASE("reads of any size give the lines and offsets of one pass over the whole text") {
  const std::string text = sample();
  const auto whole = scan(text, 0, BlockScan{}, text.size());
  REQUIRE(whole.size() > 20);
  CHECK(whole.back().line == "forge at the end: no newline");
  for (const Seen& s : whole) {
    CHECK(text.compare(s.offset, s.line.size(), s.line) == 0);
    CHECK(s.line.find('\r') == std::string::npos);
  }
  for (std::size_t block : {1u, 2u, 7u, 64u})
    for (std::size_t most : {1u, 3u, 1000u}) {
      CAPTURE(block);
      CAPTURE(most);
      CHECK(scan(text, 0, BlockScan{.block = block, .max_line = 1u << 20}, most) == whole);
    }
}

TEST_CASE("pieces cut anywhere read every line exactly once, in order") {
  const std::string text = sample();
  const auto whole = scan(text, 0, BlockScan{}, text.size());
  for (std::size_t size = 1; size <= text.size() + 1; size += (size < 80 ? 1 : 37))
    for (std::size_t block : {3u, 1024u}) {
      CAPTURE(size);
      CAPTURE(block);
      CHECK(scan_in_pieces(text, size, BlockScan{.block = block, .max_line = 1u << 20}, 5) == whole);
    }
}

TEST_CASE("a meter line over max_line is dropped and said, never read cut; the scan reads on from the next marker") {
  const std::string endless = "forge " + std::string(100, 'y') + " forge again";
  const std::string text = "forge one\n" + endless + "\nforge three\n" + endless;
  const BlockScan o{.block = 8, .max_line = 40};
  std::vector<std::uint64_t> dropped;
  const auto whole = scan(text, 0, o, 9, nullptr, &dropped);
  const std::size_t second = 10, fourth = 10 + endless.size() + 1 + 12;
  CHECK(whole == std::vector<Seen>{{"forge one", 0},
                                   {"forge again", second + 107},
                                   {"forge three", second + endless.size() + 1},
                                   {"forge again", fourth + 107}});  // the unterminated last line too
  CHECK(dropped == std::vector<std::uint64_t>{second, fourth});
  for (std::size_t size : {1u, 5u, 11u, 30u, 60u, 200u}) {
    CAPTURE(size);
    CHECK(scan_in_pieces(text, size, o, 9) == whole);
  }
}

TEST_CASE("a junk prefix over max_line: the meter line after it is read from its marker, nothing dropped") {
  const std::string junk = std::string(100, 'j');
  const std::string text = "forge one\n" + junk + "forge two\nforge three\n" + junk + "xx forge four";
  for (std::size_t block : {3u, 8u, 64u}) {
    CAPTURE(block);
    std::vector<std::uint64_t> dropped;
    std::string passed;
    const auto whole = scan(text, 0, BlockScan{.block = block, .max_line = 40}, 7, &passed, &dropped);
    CHECK(passed == text);
    CHECK(dropped.empty());
    REQUIRE(whole.size() == 4);
    CHECK(whole[1] == Seen{"forge two", 10 + junk.size()});
    CHECK(whole[2].line == "forge three");
    CHECK(whole[3] == Seen{"forge four", text.size() - 10});  // from its marker: "xx " was passed over
    for (std::size_t size : {1u, 5u, 11u, 30u, 60u, 200u}) {
      CAPTURE(size);
      CHECK(scan_in_pieces(text, size, BlockScan{.block = block, .max_line = 40}, 7) == whole);
    }
  }
}

TEST_CASE("every byte is passed exactly once, in order, cut lines included") {
  const std::string text = sample() + "\n" + "forge " + std::string(90, 'z') + "\nforge after\n";
  for (std::size_t block : {1u, 4u, 4096u}) {
    std::string passed;
    scan(text, 0, BlockScan{.block = block, .max_line = 32}, 7, &passed);
    CHECK(passed == text);
  }
}

TEST_CASE("empty text, and a piece that lies inside one line, read nothing") {
  CHECK(scan("", 0, BlockScan{}, 10).empty());
  const std::string text = "forge " + std::string(50, 'q') + "\nforge b\n";
  CHECK(scan(text, 9, BlockScan{.skip_partial_first = true, .stop = 10}, 4).empty());
  CHECK(scan(text, 9, BlockScan{.skip_partial_first = true}, 4) == std::vector<Seen>{{"forge b", 57}});
}

TEST_CASE("the last line without its newline goes to on_unended, whoever reads it; an ended one never does") {
  const std::string text = sample();  // its last line: "forge at the end: no newline"
  const std::string last = "forge at the end: no newline";
  for (const std::string& input : {text, text + "\n"}) {
    const bool ended = input.back() == '\n';
    for (std::size_t block : {3u, 64u, 4096u})
      for (std::size_t most : {1u, 7u, 1000u}) {
        CAPTURE(block);
        CAPTURE(most);
        // A piece that follows a split line past its stop reads on to the end (all of it in one read).
        const bool follows = most == 1000;
        TextSource source(input, 0, follows ? input.size() : most);
        std::vector<char> buffer;
        std::vector<Seen> lines, unended;
        BlockScan o{.block = block, .max_line = 1u << 20};
        if (follows) {
          o.stop = 10;
          o.follow = &follows;
        }
        scan_blocks(
            source, "forge ", o, buffer,
            [&](std::string_view line, std::uint64_t offset) {
              lines.push_back({std::string(line), offset});
            },
            {}, {},
            [&](std::string_view line, std::uint64_t offset) {
              unended.push_back({std::string(line), offset});
            });
        CHECK(unended == (ended ? std::vector<Seen>{} : std::vector<Seen>{{last, text.size() - last.size()}}));
        CHECK(std::ranges::count_if(lines, [&](const Seen& s) { return s.line == last; }) == (ended ? 1 : 0));
      }
  }
}
