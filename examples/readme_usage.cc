// README.md's library example, verbatim below this comment: a whole program,
// compiled and run by the suite (ctest example_readme_usage) with its input
// closed, so it stops before it could campaign: PostgresStore connects lazily,
// and a stop ends the store call in flight, so nothing reaches a server and it
// exits 0 at once.
//
// my_sweeper.cc — one loop of a service, metered and run on one replica of the fleet.
#include <chrono>
#include <cstdio>
#include <stop_token>
#include <string>
#include <thread>

#include <forgemeter/elected_lane.h>
#include <forgemeter/meter.h>
#include <forgemeter/postgres_store.h>
#include <forgemeter/transport.h>

forgemeter::Meter meter;                             // hourly lines go to stderr by default
forgemeter::Transport transport({.meter = &meter});  // libcurl underneath, thread-safe

void sweep_once(const std::string& token) {
  forgemeter::Request req{
      .url = "https://api.github.com/repos/o/r/pulls?state=open", .installation = 101, .bearer = token};
  forgemeter::Response res = transport.perform(req);  // a failed exchange is a value, not an exception
  if (!res.ok()) std::fprintf(stderr, "sweep: %s\n", res.error.message.c_str());  // every hop was counted either way
}

int main(int argc, char** argv) {
  const std::string token = argc > 1 ? argv[1] : "";
  forgemeter::PostgresStore store({.conninfo = "postgresql://app@db/app"});
  const forgemeter::Clock& clock = forgemeter::system_clock();
  std::stop_source stop;
  std::jthread sweeper([&] {
    // Only the replica holding the lease sweeps; on the others the lane's requests are refused unsent.
    forgemeter::elect(transport, forgemeter::Lane{"merge-gate-sweeper"}, store,
                      {.owner = forgemeter::make_owner_id(), .ttl = std::chrono::minutes(3)}, stop.get_token(),
                      [&](forgemeter::Term& term) {  // this thread's requests are in the lane
                        while (term.valid()) {
                          sweep_once(token);
                          clock.wait_until(clock.steady_now() + std::chrono::minutes(1), term.stop_token());
                        }
                      });
  });
  std::getchar();       // a service would wait for SIGTERM
  stop.request_stop();  // the term ends and the lease is released: the next replica takes over
}
