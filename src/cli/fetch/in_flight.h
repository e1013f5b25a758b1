// in_flight.h — fetch's requests in flight, so that a signal ends them
// counted: stop() fires every request's Request::stop (a hop in flight is
// aborted within about a second, its attempt counted with no answer,
// `none`) and waits, at most a bound, until no request is left in flight,
// so the meter's lines then written have as many answers as requests.
//
// Thread-safety: every member may be called from any thread at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stop_token>

#include "forgemeter/transport.h"

namespace forgemeter::cli {

class InFlight {
 public:
  // Performs `req` with this set's stop token, unless stop() came first
  // (then false, nothing sent). `then` runs with the response
  // before the request leaves the set — unless stop() came meanwhile (its
  // output would reach a process about to exit).
  template <class Then>
  bool perform(Transport& transport, Request req, Then&& then) {
    if (!enter()) return false;
    const Leave leave{this};
    req.stop = source_.get_token();
    const Response res = transport.perform(req);
    if (source_.stop_requested()) return false;
    then(res);
    return true;
  }

  // Fires the stop and waits until none is in flight, or `bound` passed.
  void stop(std::chrono::milliseconds bound);
  // After stop(): never returns (the thread that stopped ends the process);
  // before it: returns at once.
  void park_if_stopped();

 private:
  struct Leave {
    InFlight* set;
    ~Leave() { set->leave(); }
  };
  bool enter();
  void leave();

  std::stop_source source_;
  std::mutex mu_;
  std::condition_variable idle_;
  int busy_ = 0;  // guarded by mu_
};

}  // namespace forgemeter::cli
