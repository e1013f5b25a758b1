// The conformance rows for a race (see conformance.h): 8 candidates, each on
// its own peer() of one store, acquire at the same instant in every one of 12
// rounds; exactly one is granted, every other is refused naming the winner,
// and the terms count the changes of hands.
#include <array>
#include <barrier>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "lease/conformance_rows.h"

namespace forgemeter::conformance {
namespace {

using namespace std::chrono_literals;
using S = LeaseStatus;

constexpr int kCandidates = 8;
constexpr int kRounds = 12;

// Each of 8 threads, each on its own peer(), calls acquire(name(r), now(r))
// at once in every round; returns the answers, [round][candidate].
template <class NameOf, class NowOf>
std::vector<std::array<LeaseResult, kCandidates>> race(StoreFactory& f, NameOf name_of, NowOf now_of) {
  auto s = f.fresh();
  std::vector<std::shared_ptr<LeaseStore>> peers;
  for (int c = 0; c < kCandidates; ++c) peers.push_back(f.peer(s));
  std::vector<std::array<LeaseResult, kCandidates>> out(kRounds);
  std::barrier sync(kCandidates);
  {
    std::vector<std::jthread> threads;
    for (int c = 0; c < kCandidates; ++c) {
      threads.emplace_back([&, c] {
        const std::string owner = "candidate-" + std::to_string(c);
        for (int r = 0; r < kRounds; ++r) {
          sync.arrive_and_wait();
          out[r][c] = peers[c]->acquire(name_of(r), owner, now_of(r), 5s, ok());
        }
      });
    }
  }
  return out;
}

// Exactly one granted, every other refused naming the winner; returns the winner.
int one_winner(const std::array<LeaseResult, kCandidates>& round, int r) {
  int winner = -1, granted = 0;
  for (int c = 0; c < kCandidates; ++c) {
    INFO("round " << r << " candidate " << c << ": " << to_string(round[c].status) << " " << round[c].error);
    CHECK((round[c].status == S::granted || round[c].status == S::refused));
    if (round[c].status == S::granted) winner = c, ++granted;
  }
  CHECK(granted == 1);
  if (winner < 0) return -1;
  for (const auto& r2 : round) CHECK(r2.holder == round[winner].holder);
  for (const auto& r2 : round) CHECK(r2.term == round[winner].term);
  return winner;
}

}  // namespace

void race_for_new_lease_elects_one(StoreFactory& f) {
  auto rounds = race(
      f, [](int r) { return "race-new-" + std::to_string(r); }, [](int) { return t0; });
  for (int r = 0; r < kRounds; ++r) {
    int w = one_winner(rounds[r], r);
    if (w >= 0) CHECK(rounds[r][w].term == 1u);
  }
}

void race_for_expired_lease_elects_one(StoreFactory& f) {
  // Round r races at t0 + 10s*r with TTL 5s: the previous round's lease has expired.
  auto rounds = race(
      f, [](int) { return std::string("race-expired"); }, [](int r) { return t0 + 10s * r; });
  int prev = -1;
  std::uint64_t prev_term = 0;
  for (int r = 0; r < kRounds; ++r) {
    int w = one_winner(rounds[r], r);
    if (w < 0) break;
    // The previous winner re-taking its own expired lease keeps the term.
    CHECK(rounds[r][w].term == prev_term + (w == prev ? 0u : 1u));
    CHECK(rounds[r][w].expiry == at(t0 + 10s * r + 5s));
    prev = w;
    prev_term = rounds[r][w].term;
  }
}

}  // namespace forgemeter::conformance
