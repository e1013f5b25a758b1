// fetch_support.h — what the `forgemeter fetch` process tests share: the
// command line that reaches the loopback forge, and reading the meter's lines.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "testforge/forge.h"

namespace fmtest {

// `forgemeter fetch --resolve …` for every name and listener of the forge.
std::vector<std::string> fetch_args(const forgemeter::testforge::Forge& forge);

// The meter's counts per host in `err`; `lines` gets the number of meter lines.
std::map<std::string, std::uint64_t> meter_counts(const std::string& err, std::uint64_t& lines);

// Whether every line of `err` is a meter line (and there is at least one).
bool only_meter_lines(const std::string& err);

}  // namespace fmtest

namespace fmtest {

// A listener on 127.0.0.1 whose accept queue is full (connections queued and
// never accepted): Linux drops a new SYN to it, so a connect there neither
// succeeds nor is refused, it can only time out.
class FullListener {
 public:
  FullListener();  // throws std::runtime_error when the socket calls fail
  ~FullListener();
  FullListener(const FullListener&) = delete;
  FullListener& operator=(const FullListener&) = delete;
  int port() const noexcept { return port_; }

 private:
  int listener_ = -1, port_ = 0;
  std::vector<int> queued_;
};

}  // namespace fmtest
