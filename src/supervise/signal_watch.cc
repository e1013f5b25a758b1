#include "supervise/signal_watch.h"

#include <ctime>

namespace forgemeter::supervise {

SignalWatch::SignalWatch(std::function<void(int)> on_signal) : on_signal_(std::move(on_signal)) {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGHUP);  // a closed terminal or ssh session stops us as SIGTERM does
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  thread_ = std::thread([this] {
    const timespec tick{0, 50'000'000};  // how soon the destructor is noticed
    while (!done_) {
      const int sig = sigtimedwait(&set_, nullptr, &tick);
      if (sig > 0) on_signal_(sig);
    }
  });
}

SignalWatch::~SignalWatch() {
  done_ = true;
  thread_.join();
}

}  // namespace forgemeter::supervise
