// One log line into the fleet (LineTaker, src/report/scanner.h): Docker's
// json-file records end with the line's own "\n"; writers interleaved (a
// line cut by another's whole line) lose only the cut one; pieces of a split
// line and hours outside the years are skipped, never summed; --anchored.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "report/cri_join.h"
#include "report/scanner.h"

using namespace forgemeter::report;

namespace {

std::string count_line(int n, const std::string& hour = "2026-09-30T15:00Z") {
  return "forge HTTP: " + std::to_string(n) + " requests in the hour ending " + hour +
         " \xe2\x80\x94 api.github.com rest other=" + std::to_string(n);
}

struct Took {
  LineTaker::Taken taken;
  std::uint64_t requests = 0;  // the fleet's, over every hour
  std::string reason;
};

Took take(const std::string& line, bool anchored = false) {
  Fleet fleet;
  const std::string no_field;
  LineTaker taker(fleet, no_field, nullptr, anchored);
  Took t;
  t.taken = taker.take(line, fleet.source("x.log"), "x.log");
  for (const auto& h : fleet.hours()) t.requests += h.requests;
  t.reason = taker.reason();
  return t;
}

}  // namespace

TEST_CASE("a Docker json-file record: one trailing \\n (or \\r\\n) is the line's end") {
  for (const char* end : {R"(\n)", R"(\r\n)"}) {
    const auto t = take(R"({"log":")" + count_line(7) + end + R"(","stream":"stderr","time":"2026-09-30T15:00:01Z"})");
    CHECK(t.taken.summed == 1);
    CHECK(t.taken.skipped == 0);
    CHECK(t.requests == 7);
  }
  // Two newlines: a control byte inside the line, as before.
  const auto two = take(R"({"log":")" + count_line(7) + R"(\n\n"})");
  CHECK(two.taken.skipped == 1);
  CHECK(two.reason == "a control byte inside the line");
  // Docker splits a line over 16 KiB into records without "\n": a piece is not read cut.
  const auto piece = take(R"({"log":")" + count_line(7) + R"(","stream":"stderr"})");
  CHECK(piece.taken.summed == 0);
  CHECK(piece.taken.dropped == 1);
  CHECK(piece.reason.find("Docker json-file record without its line's end") != std::string::npos);
}

TEST_CASE("CRI records: F is a whole line, P a piece of one (held for its F; dropped, said, when the input ends)") {
  CHECK(take("2026-09-30T15:00:01.5Z stderr F " + count_line(7)).requests == 7);
  const auto p = take("2026-09-30T15:00:01.5Z stderr P " + count_line(7));
  CHECK(p.taken.summed == 0);
  CHECK(p.taken.skipped == 0);
  CHECK(take("2026-09-30T15:00:01.5Z stderr P nothing metered").taken.skipped == 0);
}

namespace {

// Every line through one taker, then the end of the input.
Took take_all(const std::vector<std::string>& lines) {
  Fleet fleet;
  const std::string no_field;
  LineTaker taker(fleet, no_field);
  Took t;
  auto add = [&](LineTaker::Taken k) {
    if (k.skipped > 0 && t.taken.skipped == 0) t.reason = taker.reason();
    t.taken.summed += k.summed;
    t.taken.skipped += k.skipped;
    t.taken.dropped += k.dropped;
  };
  for (const auto& l : lines) add(taker.take(l, fleet.source("x.log"), "x.log"));
  CHECK_FALSE(taker.joining() != *taker.follow());
  add(taker.end_of_input());
  for (const auto& h : fleet.hours()) t.requests += h.requests;
  return t;
}

const std::string kErrP = "2026-09-30T15:00:01.5Z stderr P ";
const std::string kErrF = "2026-09-30T15:00:01.6Z stderr F ";
const std::string kOutP = "2026-09-30T15:00:01.5Z stdout P ";
const std::string kOutF = "2026-09-30T15:00:01.7Z stdout F ";

}  // namespace

TEST_CASE("CRI: a meter line split over 2 and 3 P records is joined at its F and read once, whole") {
  const std::string line = count_line(7);
  const auto two = take_all({kErrP + line.substr(0, 30), kErrF + line.substr(30)});
  CHECK(two.taken.summed == 1);
  CHECK(two.taken.skipped == 0);
  CHECK(two.requests == 7);
  const auto three = take_all({kErrP + line.substr(0, 20), kErrP + line.substr(20, 40), kErrF + line.substr(60)});
  CHECK(three.taken.summed == 1);
  CHECK(three.requests == 7);
  // Cut inside the dash's UTF-8 bytes: joined bytes, not characters.
  const std::size_t dash = line.find("\xe2\x80\x94");
  CHECK(take_all({kErrP + line.substr(0, dash + 1), kErrF + line.substr(dash + 1)}).requests == 7);
}

TEST_CASE("CRI: stdout and stderr interleaved: each stream joins its own pieces; a whole line between is read") {
  const std::string a = count_line(7), b = count_line(5), c = count_line(3);
  const auto t = take_all({kErrP + a.substr(0, 25), kOutF + c, kOutP + b.substr(0, 40), "plain app text",
                           kErrP + a.substr(25, 10), kOutF + b.substr(40), kErrF + a.substr(35)});
  CHECK(t.taken.summed == 3);
  CHECK(t.taken.skipped == 0);
  CHECK(t.requests == 15);
}

TEST_CASE("CRI: pieces whose F never comes are dropped and said; a new line after a lost F is still read") {
  const std::string a = count_line(7), b = count_line(5);
  const auto eof = take_all({kErrP + a.substr(0, 25), kErrP + a.substr(25, 10)});
  CHECK(eof.taken.summed == 0);
  CHECK(eof.taken.skipped == 1);
  CHECK(eof.taken.dropped == 1);
  CHECK(eof.reason.find("whose F record never came") != std::string::npos);
  // The runtime lost the F: the next whole line of the stream closes the join; the cut line
  // is dropped (cut by another line), the whole one after it counted.
  const auto lost = take_all({kErrP + a.substr(0, 25), kErrF + b});
  CHECK(lost.taken.summed == 1);
  CHECK(lost.taken.dropped == 1);
  CHECK(lost.requests == 5);
}

TEST_CASE("CriJoin: a join past the line limit (its pieces and the input between) is given up") {
  CriJoin join(100);
  CHECK(join.offer(kErrP + std::string(40, 'a')).step == CriJoin::Step::held);
  CHECK(join.joining());
  auto o = join.offer(kErrP + std::string(40, 'b'));  // 73 + 73 bytes with their newlines: over 100
  CHECK(o.step == CriJoin::Step::held);
  CHECK(o.given_up == 1);
  CHECK_FALSE(join.joining());
  // The other stream's records and other lines count to the limit too.
  CHECK(join.offer(kErrP + "x").step == CriJoin::Step::held);
  o = join.offer(std::string(80, 'z'));
  CHECK(o.step == CriJoin::Step::pass);
  CHECK(o.given_up == 1);
  // Within the limit: joined, flagged F, the pieces' text after the first's prefix.
  CriJoin fits(200);
  CHECK(fits.offer(kErrP + "ab").step == CriJoin::Step::held);
  CHECK(fits.offer(kOutF + "other").step == CriJoin::Step::pass);
  CHECK(fits.offer(kErrF + "cd").step == CriJoin::Step::joined);
  CHECK(fits.text() == "2026-09-30T15:00:01.5Z stderr F abcd");
  CHECK(fits.end() == 0);
  CHECK(fits.offer(kOutP + "x").step == CriJoin::Step::held);
  CHECK_FALSE(fits.offer(kOutP + "y", /*may_start=*/false).given_up);
  CHECK(fits.end() == 1);
  CHECK(fits.offer(kOutP + "x", /*may_start=*/false).step == CriJoin::Step::pass);  // another reader's to open
}

TEST_CASE("writers interleaved: the cut line is dropped and said, the whole one after it counted") {
  const std::string cut = count_line(9).substr(0, 70);
  const auto t = take("2026-09-30T15:00:01Z " + cut + "2026-09-30T15:00:01Z " + count_line(7));
  CHECK(t.taken.summed == 1);
  CHECK(t.taken.skipped == 1);
  CHECK(t.taken.dropped == 1);
  CHECK(t.requests == 7);
  CHECK(t.reason.find("cut by another line at byte " + std::to_string(21 + 70 + 21 + 1)) != std::string::npos);
  // In JSON records too: the cut record's string ends at the next record's first quote.
  const auto json = take(R"({"msg":")" + cut + R"({"msg":")" + count_line(7) + R"("})");
  CHECK(json.taken.summed == 1);
  CHECK(json.requests == 7);
  // Three writers: every whole line is read on from.
  const auto three = take(cut + cut + count_line(5));
  CHECK(three.taken.summed == 1);
  CHECK(three.taken.dropped == 2);
  CHECK(three.requests == 5);
  // --anchored reads a log line's message only: the whole line after a cut one is not its message.
  const auto anchored = take(cut + count_line(7), true);
  CHECK(anchored.taken.summed == 0);
  CHECK(anchored.taken.skipped == 1);
  CHECK(anchored.taken.dropped == 0);
}

TEST_CASE("a line dated outside the years 1970 to 2261 is malformed; never summed") {
  for (const char* hour : {"2262-01-01T00:00Z", "9999-12-31T23:00Z", "1969-12-31T23:00Z", "0000-01-01T01:00Z"}) {
    CAPTURE(hour);
    const auto t = take(count_line(7, hour));
    CHECK(t.taken.summed == 0);
    CHECK(t.taken.skipped == 1);
    CHECK(t.reason == std::string("the hour ending ") + hour + " is outside the years 1970 to 2261");
  }
  CHECK(take(count_line(7, "2261-12-31T23:00Z")).requests == 7);
  CHECK(take(count_line(7, "1970-01-01T01:00Z")).requests == 7);
}

TEST_CASE("--anchored: a meter line quoted at the end of other text is not counted; the default counts it") {
  const std::string quoted = "2026-09-30T15:00:01Z INFO a user quoted: " + count_line(7);
  CHECK(take(quoted).requests == 7);
  const auto a = take(quoted, true);
  CHECK(a.taken.summed == 0);
  CHECK(a.taken.skipped == 0);  // not a meter line at all
  CHECK(take("Sep 30 15:00:01 web-1 app[42]: " + count_line(7), true).requests == 7);
}
