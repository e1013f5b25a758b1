// The meter's memory bounds, measured on the tables that keep the counts: a
// shard's CountTable and an hour's HourTally hold at most their bound of
// distinct keys however many hosts arrive, and count every request anyway.
#include <doctest/doctest.h>

#include <atomic>
#include <string>

#include "meter/count_table.h"
#include "meter/tally.h"

using namespace forgemeter;

namespace {

std::string host_no(int i) { return "h" + std::to_string(i) + ".example"; }

}  // namespace

TEST_CASE("a shard's table keeps at most its bound of keys; past it, hosts fold and still count") {
  constexpr std::size_t kBound = 4096;
  meter::CountTable table(kBound);
  std::atomic<std::uint64_t> seq{0};
  const Lane lane("sweeper");
  for (int i = 0; i < 9000; ++i) {
    const std::string host = host_no(i);
    const RequestKey key{.host = host, .lane = lane};
    table.add(meter::hash_key(key), key, seq);
  }
  CHECK(table.size() == kBound + 1);  // the bound, and one folded key for (api, installation, lane)
  std::uint64_t total = 0, folded = 0;
  table.for_each([&](const meter::CountTable::Slot& s) {
    total += s.count;
    if (s.folded) folded += s.count;
  });
  CHECK(total == 9000);
  CHECK(folded == 9000 - kBound);
}

TEST_CASE("an hour's tally keeps at most its bound of hosts by name; answers past it fold and still count") {
  constexpr std::size_t kBound = 4096;
  meter::HourTally tally(kBound);
  for (int i = 0; i < 9000; ++i)
    tally.add_answer(host_no(i), Api::rest, Lane::other(), AnswerClass::ok2xx, 1, static_cast<std::uint64_t>(i));
  CHECK(tally.host_count() == kBound);
  CHECK_FALSE(tally.empty());
}
