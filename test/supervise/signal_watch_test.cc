// SignalWatch: SIGINT, SIGTERM and SIGHUP sent to the process reach its callback on
// the watch's thread, outside any signal handler.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "supervise/signal_watch.h"
#include "support/eventually.h"

using forgemeter::supervise::SignalWatch;

TEST_CASE("SIGTERM, SIGINT and SIGHUP to the process reach the callback, in order, once each") {
  std::mutex mu;
  std::vector<int> got;
  {
    SignalWatch watch([&](int sig) {
      std::lock_guard lock(mu);
      got.push_back(sig);
    });
    ::kill(::getpid(), SIGTERM);
    REQUIRE(fmtest::eventually([&] {
      std::lock_guard lock(mu);
      return got.size() == 1;
    }));
    ::kill(::getpid(), SIGINT);
    REQUIRE(fmtest::eventually([&] {
      std::lock_guard lock(mu);
      return got.size() == 2;
    }));
    ::kill(::getpid(), SIGHUP);  // a terminal hung up: by default it would end the process here
    REQUIRE(fmtest::eventually([&] {
      std::lock_guard lock(mu);
      return got.size() == 3;
    }));
  }
  CHECK(got == std::vector<int>{SIGTERM, SIGINT, SIGHUP});
}
