#include "supervise/heartbeats.h"

#include <signal.h>
#include <time.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "support/temp_files.h"

namespace fmtest {

std::map<pid_t, Beats> read_heartbeats(const std::string& dir) {
  std::map<pid_t, Beats> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("hb.", 0) != 0) continue;
    std::string text = read_file(e.path().string());
    text.erase(text.find_last_of('\n') + 1);  // a line being written is not read
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream w(line);
      long long pid = 0, ns = 0;
      std::string mark;
      if (!(w >> pid >> ns)) continue;
      Beats& b = out[static_cast<pid_t>(pid)];
      if (b.count++ == 0) b.first = ns;
      b.first = std::min<std::int64_t>(b.first, ns);
      b.last = std::max<std::int64_t>(b.last, ns);
      if (w >> mark && mark == "TERM" && !b.term) b.term = ns;
    }
  }
  return out;
}

std::int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

bool worker_alive(pid_t pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  std::string comm = read_file(proc + "/comm");
  if (comm.rfind("fm_tree_worker", 0) != 0) return false;  // gone (or the pid was reused)
  std::string stat = read_file(proc + "/stat");
  auto paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return false;
  char state = stat[paren + 2];
  return state != 'Z' && state != 'X' && state != 'x';
}

std::size_t alive_count(const std::map<pid_t, Beats>& beats) {
  std::size_t n = 0;
  for (const auto& [pid, b] : beats) n += worker_alive(pid);
  return n;
}

std::size_t termed_count(const std::map<pid_t, Beats>& beats) {
  std::size_t n = 0;
  for (const auto& [pid, b] : beats) n += b.term.has_value();
  return n;
}

std::int64_t earliest_beat(const std::map<pid_t, Beats>& beats) {
  std::int64_t t = 0;
  for (const auto& [pid, b] : beats) t = t == 0 ? b.first : std::min(t, b.first);
  return t;
}

std::int64_t latest_beat(const std::map<pid_t, Beats>& beats) {
  std::int64_t t = 0;
  for (const auto& [pid, b] : beats) t = std::max(t, b.last);
  return t;
}

}  // namespace fmtest
