// README.md's library example, verbatim between the marks, compiled and run so
// it stays true. It runs offline: the replica is stopped before it campaigns,
// so elect() gates the lane and returns at once (PostgresStore connects
// lazily: nothing reaches a server), and the sweep, in a lane this replica
// holds no term of, is refused before sending. The Meter writes the refusal
// on stderr at exit.
//
//   build/<dir>/examples/example_readme_usage
#include <cstdio>
#include <stop_token>
#include <string>

void log(const std::string& message);  // the application's own
void sweep_every_minute();

// --- README.md, verbatim ------------------------------------------------------
#include <forgemeter/elected_lane.h>
#include <forgemeter/meter.h>
#include <forgemeter/postgres_store.h>
#include <forgemeter/transport.h>

forgemeter::Meter meter;                                // hourly lines go to stderr by default
forgemeter::Transport transport({.meter = &meter});     // libcurl underneath, thread-safe

int sweep_once(const std::string& token) {
  forgemeter::LaneScope lane{forgemeter::Lane{"merge-gate-sweeper"}};  // tags this thread's requests
  forgemeter::Request req{.url = "https://api.github.com/repos/o/r/pulls/7",
                          .installation = 101, .bearer = token};
  forgemeter::Response res = transport.perform(req);    // a failed exchange is a value, not an exception
  if (!res.ok()) log(res.error.message);                // every hop was counted either way
  return res.status;
}

// One replica of the fleet sweeps; on the others the lane's requests are refused before sending.
void sweep_on_one_replica(std::stop_token stop_token) {
  forgemeter::PostgresStore store({.conninfo = "postgresql://app@db/app"});
  forgemeter::elect(transport, forgemeter::Lane{"merge-gate-sweeper"}, store,
                    {.owner = forgemeter::make_owner_id(), .ttl = std::chrono::minutes(3)}, stop_token,
                    [&](forgemeter::Term& term) { while (!term.stop_token().stop_requested()) sweep_every_minute(); });
}
// -----------------------------------------------------------------------------

std::string logged;  // what log() was given last
void log(const std::string& message) {
  logged = message;
  std::fprintf(stderr, "%s\n", message.c_str());
}
void sweep_every_minute() { sweep_once("inst-101"); }

int main() {
  std::stop_source stop;
  stop.request_stop();
  sweep_on_one_replica(stop.get_token());
  const int status = sweep_once("inst-101");
  std::printf("a sweep without a term: status %d, nothing sent\n", status);
  return status == forgemeter::kNoAnswer && logged.find("holds no valid term") != std::string::npos ? 0 : 1;
}
