// 8 threads x 200,000 records over 5 simulated hours, turns racing: the sum of
// N over all lines is exactly the records made, every run (also under TSan).
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

#include "meter_fixture.h"

using namespace forgemeter;
using namespace fmtest;

TEST_CASE("racing turns lose and double nothing") {
  constexpr int kThreads = 8;
  constexpr int kRecords = 200'000;
  constexpr std::int64_t kSpanMs = 5 * 3'600'000;
  const Lane lanes[] = {Lane::other(), Lane{"a"}, Lane{"b"}, Lane{"c"}};
  const char* hosts[] = {"api.github.com", "uploads.github.com", "codeload.github.com"};

  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    fmtest::LineCatch lines;
    ManualClock clock(at(14, 17));
    {
      Meter meter({.clock = &clock, .sink = lines.sink()});
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
          for (int i = 0; i < kRecords; ++i) {
            // Each thread walks the 5 hours at its own pace; every 16th record
            // is stamped up to 2 s early, as a record that raced a turn would be.
            std::int64_t ms = std::int64_t{i} * kSpanMs / kRecords + t * 37;
            if (i % 16 == 0) ms -= (i * 7919) % 2000;
            const RequestKey key{.host = hosts[(i + t) % 3],
                                 .api = i % 5 == 0 ? Api::graphql : Api::rest,
                                 .installation = static_cast<std::uint64_t>(i % 2),
                                 .lane = lanes[(i / 3 + t) % 4]};
            meter.record_request(key, at(14, 17) + std::chrono::milliseconds{ms});
            if (i % 64 == 0)
              meter.record_answer({.key = key, .seen = at(14, 17) + std::chrono::milliseconds{ms}, .status = 200});
          }
        });
      }
      // Round 1 also flushes and scrapes while the others record: a flush
      // writes part of an hour, the next line the rest; still nothing lost.
      std::atomic<bool> done{false};
      std::thread scraper;
      if (round == 1) {
        scraper = std::thread([&] {
          while (!done.load()) {
            meter.flush();
            CHECK(meter.prometheus().find("forgemeter_requests_total") != std::string::npos);
            std::this_thread::yield();
          }
        });
      }
      for (auto& th : threads) th.join();
      done = true;
      if (scraper.joinable()) scraper.join();
      clock.set_wall(at(19, 30));
    }
    std::uint64_t sum = 0, answers = 0;
    std::map<std::string, std::uint64_t> per_lane;
    std::vector<std::chrono::sys_seconds> hours;
    for (const auto& l : lines.take()) {
      auto s = scan_line(l);
      REQUIRE(s.kind == LineScan::Kind::line);
      if (auto* c = std::get_if<CountLine>(&s.line)) {
        sum += c->total;
        hours.push_back(c->hour_ending);
        for (const auto& e : c->entries) per_lane[e.lane] += e.count;
      } else if (auto* a = std::get_if<AnswersLine>(&s.line)) {
        for (const auto& e : a->entries) answers += e.counts[0];
      }
    }
    CHECK(sum == std::uint64_t{kThreads} * kRecords);
    CHECK(answers == std::uint64_t{kThreads} * (kRecords / 64 + (kRecords % 64 ? 1 : 0)));
    for (const auto& [lane, n] : per_lane) CHECK(n == std::uint64_t{kThreads} * kRecords / 4);
    // 14:17 to 19:17: six clock hours, each written once (more when flushed), in order.
    if (round == 0) CHECK(hours.size() == 6);
    CHECK(hours.size() >= 6);
    CHECK(std::is_sorted(hours.begin(), hours.end()));
  }
}
