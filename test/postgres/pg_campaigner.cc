// A campaigner process for the multi-process test: campaigns on one lease
// through PostgresStore until SIGTERM (a clean stop: campaign() releases) or until
// it is killed. Prints one line per fact, flushed at once, with the monotonic
// clock (CLOCK_MONOTONIC, comparable across processes on this machine):
//
//   READY <owner>
//   ELECTED <owner> <term> <steady_ns>   work started, gate valid
//   ENDED <owner> <term> <steady_ns>     last instant work saw its gate valid
//   EVENT <text>
//   EXIT <owner> <steady_ns>
//
// usage: pg_campaigner CONNINFO TABLE NAME OWNER TTL_MS RETRY_MS
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

#include "forgemeter/campaign.h"
#include "forgemeter/postgres_store.h"

namespace {

std::mutex out_mu;

long long steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void say(const std::string& line) {
  std::lock_guard lock(out_mu);
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s CONNINFO TABLE NAME OWNER TTL_MS RETRY_MS\n", argv[0]);
    return 2;
  }
  const std::string owner = argv[4];
  // SIGTERM is taken by one thread with sigwait, which requests the stop.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::stop_source stop;
  std::thread([&] {
    int sig = 0;
    sigwait(&set, &sig);
    stop.request_stop();
  }).detach();

  forgemeter::PostgresStore store(
      {.conninfo = argv[1], .table = argv[2], .max_connections = 2, .application_name = "fm-campaigner-" + owner});
  forgemeter::CampaignSpec spec{.name = argv[3],
                                .owner = owner,
                                .ttl = std::chrono::milliseconds(std::atoll(argv[5])),
                                .retry = std::chrono::milliseconds(std::atoll(argv[6])),
                                .on_event = [](const forgemeter::LeaseEvent& e) { say("EVENT " + e.text); }};
  say("READY " + owner);
  forgemeter::campaign(store, spec, stop.get_token(), [&](forgemeter::Term& term) {
    const std::string t = std::to_string(term.number());
    say("ELECTED " + owner + " " + t + " " + std::to_string(steady_ns()));
    long long last_valid = steady_ns();
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    auto token = term.stop_token();
    while (!token.stop_requested() && term.valid()) {
      last_valid = steady_ns();
      cv.wait_for(lock, token, std::chrono::milliseconds(2), [] { return false; });
    }
    say("ENDED " + owner + " " + t + " " + std::to_string(last_valid));
  });
  say("EXIT " + owner + " " + std::to_string(steady_ns()));
  return 0;
}
