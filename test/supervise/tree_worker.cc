// fm_tree_worker DIR SPEC [SPEC…] — a chain of heartbeating processes, the
// process trees the `lease run` tree tests put under a lease.
//
// The first SPEC is this process; each process forks the next SPEC's. Every
// process appends "<pid> <CLOCK_MONOTONIC ns>\n" to DIR/hb.<pid> (a file of
// its own, one write() a line) every 5 ms, and "<pid> <ns> TERM\n" when
// SIGTERM arrives. A SPEC is comma-separated words:
//   linger=MS  after SIGTERM, keep heartbeating MS more, then exit 0 (default: exit at once)
//   exit       exit right after forking the next (which becomes an orphan)
//   setsid     call setsid() first: leave CMD's process group and session
// Every process exits by itself after 120 s, so a failed test leaks nothing for long.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>

namespace {

volatile sig_atomic_t got_term = 0;

std::int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

struct Spec {
  std::int64_t linger_ms = 0;
  bool exit_after_fork = false, setsid = false;
};

Spec parse(std::string_view s) {
  Spec spec;
  while (!s.empty()) {
    auto comma = s.find(',');
    std::string_view word = s.substr(0, comma);
    if (word.substr(0, 7) == "linger=")
      spec.linger_ms = std::atoll(std::string(word.substr(7)).c_str());
    else if (word == "exit")
      spec.exit_after_fork = true;
    else if (word == "setsid")
      spec.setsid = true;
    s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
  }
  return spec;
}

void beat(int fd, const char* what) {
  char line[96];
  int n = std::snprintf(line, sizeof line, "%d %lld%s\n", static_cast<int>(getpid()), static_cast<long long>(mono_ns()),
                        what);
  [[maybe_unused]] auto w = write(fd, line, static_cast<std::size_t>(n));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fputs("usage: fm_tree_worker DIR SPEC [SPEC...]\n", stderr);
    return 2;
  }
  const std::string dir = argv[1];
  int level = 2;
  for (;;) {
    Spec spec = parse(argv[level]);
    if (spec.setsid) setsid();
    struct sigaction on_term {};
    on_term.sa_handler = [](int) { got_term = 1; };
    sigaction(SIGTERM, &on_term, nullptr);
    const int fd =
        open((dir + "/hb." + std::to_string(getpid())).c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    beat(fd, "");
    if (level + 1 < argc) {
      pid_t child = fork();
      if (child == 0) {
        close(fd);
        ++level;
        continue;  // the child runs the next spec
      }
    }
    if (spec.exit_after_fork) return 0;
    const std::int64_t born = mono_ns();
    std::int64_t termed = -1;
    while (mono_ns() - born < 120'000'000'000LL) {
      if (got_term != 0 && termed < 0) {
        termed = mono_ns();
        beat(fd, " TERM");
      }
      if (termed >= 0 && mono_ns() - termed >= spec.linger_ms * 1'000'000) return 0;
      beat(fd, "");
      timespec tick{0, 5'000'000};
      nanosleep(&tick, nullptr);
    }
    return 0;
  }
}
