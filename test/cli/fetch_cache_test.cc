// `forgemeter fetch --cache` as a process against the loopback forge: a URL
// repeated in --urls is revalidated (a free 304 on the wire, the kept 200 to
// the user), identical URLs in flight at once with --parallel put one request
// on the wire; the meter's lines and the forge's ground truth agree.
#include <doctest/doctest.h>

#include <sstream>
#include <thread>

#include "forgemeter/lines.h"
#include "signed_fetch.h"

using namespace forgemeter;
using namespace fmtest;

namespace {

struct Rig : SignedFetch {
  std::string urls = dir.file("urls");
};

// The meter's answers on stderr, summed by class over every entry.
std::array<std::uint64_t, kAnswerClasses> answers(const std::string& err) {
  std::array<std::uint64_t, kAnswerClasses> sum{};
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    const LineScan s = scan_line(line);
    if (const auto* a = std::get_if<AnswersLine>(&s.line))
      for (const auto& e : a->entries)
        for (std::size_t i = 0; i < kAnswerClasses; ++i) sum[i] += e.counts[i];
  }
  return sum;
}

std::uint64_t of(const std::array<std::uint64_t, kAnswerClasses>& a, AnswerClass c) {
  return a[static_cast<std::size_t>(c)];
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("fetch --cache: a URL repeated in --urls is revalidated; only the first read is charged") {
  Rig rig;
  const std::string a = rig.url("/repos/o/r/pulls/1"), b = rig.url("/repos/o/r/pulls/2");
  write_file(rig.urls, "GET " + a + "\nGET " + b + "\nGET " + a + "\nGET " + b + "\nGET " + a + "\n");
  auto r = rig.fetch({"--cache", "--urls", rig.urls});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(count(r.out, "\n") == 5);
  CHECK(count(r.out, "200 GET ") == 5);  // every caller gets the body's status
  CHECK(count(r.out, " cache=revalidated") == 3);
  CHECK(rig.charged() == 2);  // two distinct resources
  const auto truth = rig.forge.truth().conditionals_by_host_and_lane();
  CHECK(truth.at({rig.host(), ""}) == testforge::Conditionals{.sent = 3, .not_modified = 3});
  CHECK(rig.forge.truth().total() == 5);  // a revalidation is a request on the wire
  std::uint64_t lines = 0;
  CHECK(meter_counts(r.err, lines).at(rig.host()) == 5);
  const auto got = answers(r.err);
  CHECK(of(got, AnswerClass::ok2xx) == 2);
  CHECK(of(got, AnswerClass::not_modified) == 3);
  CHECK(of(got, AnswerClass::revalidated) == 3);

  // Without --cache each read is a full, charged 200.
  auto plain = rig.fetch({"--urls", rig.urls});
  CHECK(plain.exit_code == 0);
  CHECK(count(plain.out, "cache=") == 0);
  CHECK(rig.charged() == 7);
}

TEST_CASE("fetch --cache --parallel: identical GETs in flight at once put one request on the wire") {
  Rig rig;
  constexpr int kN = 8;
  const std::string url = rig.url("/repos/o/r/pulls/3?hold=same");
  std::string lines;
  for (int i = 0; i < kN; ++i) lines += "GET " + url + "\n";
  write_file(rig.urls, lines);
  ProcessResult r;
  std::thread run([&] { r = rig.fetch({"--cache", "--parallel", std::to_string(kN), "--urls", rig.urls}); });
  REQUIRE(rig.forge.await_held("same", 1, std::chrono::seconds(30)));
  // Margin: the other workers start their identical request well within this
  // (they are threads of a process already running); one that started later
  // would still be correct, a revalidation rather than a follower.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  rig.forge.release("same");
  run.join();
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(count(r.out, "200 GET ") == kN);
  const std::size_t coalesced = count(r.out, " cache=coalesced");
  MESSAGE("coalesced: " << coalesced << " of " << kN << ", on the wire: " << rig.forge.truth().total());
  CHECK(coalesced >= 1);
  // On the wire: the leader, and only revalidations besides (none charged).
  auto& truth = rig.forge.truth();
  CHECK(truth.total() + coalesced == kN);
  CHECK(rig.charged() == 1);
  std::uint64_t n = 0;
  CHECK(meter_counts(r.err, n).at(rig.host()) == truth.total());  // a follower is not in N
  CHECK(of(answers(r.err), AnswerClass::coalesced) == coalesced);
}
