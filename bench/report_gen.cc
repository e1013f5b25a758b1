// report_gen — writes a multi-replica log for the `forgemeter report` benchmark.
//
//   report_gen OUT BYTES [REPLICAS=10] [NOISE_PER_HOUR=1000]
//
// Lines look like `kubectl logs --prefix`: `[pod/web-3/app] 2026-…Z INFO …`.
// NOISE_PER_HOUR application lines per simulated hour (each from a random replica) and,
// at each hour turn each replica's three meter lines (count, budget, answers), made with
// the library's format_line so they are byte-exact. Prints on stdout the sum
// of N over all count lines and how many meter lines were written, so the
// benchmark can check every tool summed the same.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <tuple>

#include "forgemeter/lines.h"

using namespace forgemeter;
using namespace std::chrono;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: report_gen OUT BYTES [REPLICAS] [NOISE_PER_HOUR]\n");
    return 2;
  }
  const std::uint64_t want = std::strtoull(argv[2], nullptr, 10);
  const int replicas = argc > 3 ? std::atoi(argv[3]) : 10;
  const int noise = argc > 4 ? std::atoi(argv[4]) : 1000;
  FILE* out = std::fopen(argv[1], "wb");
  if (out == nullptr) {
    std::perror(argv[1]);
    return 1;
  }
  std::setvbuf(out, nullptr, _IOFBF, 1 << 20);
  std::mt19937_64 rng(42);
  const char* lanes[] = {"merge-gate-sweeper", "board-sync", "review-relay"};
  const char* words[] = {"gate: run", "still pending", "offer accepted", "reconciler re-read", "status", "pull",
                         "cache hit", "queue depth",   "webhook",        "delivered"};
  sys_seconds hour = sys_days{2026y / 9 / 1} + 1h;
  std::uint64_t written = 0, total = 0, meter_lines = 0;
  char buf[512];
  while (written < want) {
    for (int i = 0; i < noise && written < want; ++i) {
      int r = static_cast<int>(rng() % static_cast<unsigned>(replicas));
      auto t = hour - 1h + milliseconds(static_cast<long>(i) * 3'600'000 / noise);
      auto tt = system_clock::to_time_t(t);
      std::tm tm{};
      gmtime_r(&tt, &tm);
      int n = std::snprintf(
          buf, sizeof buf, "[pod/web-%d/app] %04d-%02d-%02dT%02d:%02d:%02d.%03dZ INFO %s %llu %s (sha %016llx)\n", r,
          tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, i % 1000, words[rng() % 10],
          static_cast<unsigned long long>(rng() % 100000), words[rng() % 10], static_cast<unsigned long long>(rng()));
      std::fwrite(buf, 1, static_cast<std::size_t>(n), out);
      written += static_cast<std::uint64_t>(n);
    }
    for (int r = 0; r < replicas && written < want; ++r) {
      CountLine c{hour, {}, 0, {}};
      for (int k = 0; k < 6; ++k)
        c.entries.push_back(CountEntry{k < 4 ? "api.github.com" : "uploads.github.com",
                                       k % 3 == 2 ? Api::graphql : Api::rest, k < 3 ? 101u : 0u, lanes[k % 3],
                                       1 + rng() % 2000});
      std::sort(c.entries.begin(), c.entries.end(), [](const CountEntry& a, const CountEntry& b) {
        if (a.count != b.count) return a.count > b.count;
        return std::tie(a.host, a.api, a.lane, a.installation) < std::tie(b.host, b.api, b.lane, b.installation);
      });
      for (const auto& e : c.entries) c.total += e.count;
      BudgetLine b{hour,
                   {},
                   {BudgetEntry{"api.github.com", Api::rest, 101, "", rng() % 5000, 5000,
                                seconds(3600 * 13 + rng() % 3600), std::nullopt}}};
      AnswersEntry ae{"api.github.com", Api::rest, {}};
      ae.counts[0] = c.total;
      AnswersLine a{hour, {}, {ae}};
      std::string prefix = "[pod/web-" + std::to_string(r) + "/app] INFO ";
      for (const MeterLine& l : {MeterLine(c), MeterLine(b), MeterLine(a)}) {
        std::string s = prefix + format_line(l) + "\n";
        std::fwrite(s.data(), 1, s.size(), out);
        written += s.size();
        ++meter_lines;
      }
      total += c.total;
    }
    hour += 1h;
  }
  std::fclose(out);
  std::printf("total_requests=%llu meter_lines=%llu bytes=%llu\n", static_cast<unsigned long long>(total),
              static_cast<unsigned long long>(meter_lines), static_cast<unsigned long long>(written));
  return 0;
}
