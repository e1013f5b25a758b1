// `forgemeter lease status --watch NAME` on PostgreSQL: one line per change
// (text, or JSON lines with --json) as `lease run` processes take, hand over
// and release the lease, in order; a hostile owner name reaches the terminal
// escaped; SIGINT and SIGTERM end the watch with exit 0; with the store down
// it says so once on stderr and keeps asking.
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "core/components.h"
#include "forgemeter_bin.h"
#include "support/free_port.h"
#include "support/skips.h"
#if FORGEMETER_HAS_POSTGRES
#include "support/pg_env.h"
#endif

using namespace fmtest;
using namespace std::chrono;

namespace {

bool has(const std::string& line, const std::string& part) { return line.find(part) != std::string::npos; }

// The index of the first line at or after `from` holding `part`, or -1.
int find_from(const std::vector<std::string>& lines, std::size_t from, const std::string& part) {
  for (std::size_t i = from; i < lines.size(); ++i)
    if (has(lines[i], part)) return static_cast<int>(i);
  return -1;
}

}  // namespace

#if FORGEMETER_HAS_POSTGRES
FM_SUITE_PG_TEST(
    "lease status --watch on PostgreSQL: acquire, handover and release in order; escaped; SIGINT exits 0") {
  TempDir dir;
  const std::string name = "watch-" + std::to_string(getpid());
  LineChild text({forgemeter_bin(), "lease", "status", "--watch", "--store", *pg, name});
  LineChild json({forgemeter_bin(), "lease", "status", "--watch", "--json", "--store", *pg, name});
  REQUIRE(has(text.await_line([](const std::string& l) { return has(l, "free (never taken)"); }, 20s), name));
  REQUIRE(!json.await_line([](const std::string& l) { return has(l, "\"held\":false"); }, 20s).empty());

  const std::string evil = "p0\x1b[31m\x07";
  auto run = [&](const std::string& owner, const std::string& file) {
    return spawn_process({forgemeter_bin(), "lease", "run", "--store", *pg, "--name", name, "--owner", owner, "--ttl",
                          "9s", "--retry", "3s", "--", "sleep", "3600"},
                         dir.file(file + ".out"), dir.file(file + ".err"));
  };
  // Both watchers see each holder before the next change: two changes between
  // two of a watcher's questions are seen as the last one (observe.h).
  const auto json_held = [](int term) {
    return [term](const std::string& l) {
      return has(l, "\"held\":true") && has(l, "\"term\":" + std::to_string(term) + ",");
    };
  };
  Spawned p0 = run(evil, "p0");
  REQUIRE(!text.await_line([](const std::string& l) { return has(l, "term 1"); }, 20s).empty());
  REQUIRE(!json.await_line(json_held(1), 20s).empty());
  Spawned p1 = run("p1", "p1");  // waits; p0's release and p1's take may come as one change
  kill(p0.pid, SIGTERM);
  REQUIRE(!text.await_line([](const std::string& l) { return has(l, "held by p1 "); }, 20s).empty());
  REQUIRE(!json.await_line(json_held(2), 20s).empty());
  kill(p1.pid, SIGTERM);
  REQUIRE(!text.await_line([](const std::string& l) { return has(l, "free (term 2)"); }, 20s).empty());
  wait_exit(p0.pid, seconds(20));
  wait_exit(p1.pid, seconds(20));

  const auto lines = text.lines();
  const int held0 = find_from(lines, 0, "held by p0\\x1b[31m\\x07 until");
  REQUIRE(held0 > 0);
  CHECK(has(lines[static_cast<std::size_t>(held0)], "term 1"));
  const int held1 = find_from(lines, static_cast<std::size_t>(held0) + 1, "held by p1 until");
  REQUIRE(held1 > held0);
  CHECK(has(lines[static_cast<std::size_t>(held1)], "term 2"));
  CHECK(find_from(lines, static_cast<std::size_t>(held1) + 1, "free (term 2)") > held1);
  for (const auto& l : lines) {
    CHECK(l.find('\x1b') == std::string::npos);
    CHECK(l.find('\x07') == std::string::npos);
  }
  text.signal(SIGINT);
  CHECK(text.wait_exit(20s) == 0);

  // The same changes as JSON lines, one object a line, the holder's bytes escaped by JSON.
  json.await_line([](const std::string& l) { return has(l, "\"held\":false") && has(l, "\"term\":2"); }, 20s);
  std::vector<std::string> held;
  for (const auto& l : json.lines()) {
    CHECK(l.find('\x1b') == std::string::npos);
    CHECK((l.front() == '{' && l.back() == '}' && has(l, "\"name\":\"" + name + "\"")));
    if (has(l, "\"held\":true")) held.push_back(l);
  }
  REQUIRE(held.size() == 2);
  CHECK((has(held[0], "\"holder\":\"p0\\u001b[31m\\u0007\"") && has(held[0], "\"term\":1")));
  CHECK((has(held[1], "\"holder\":\"p1\"") && has(held[1], "\"term\":2")));
  json.signal(SIGTERM);
  CHECK(json.wait_exit(20s) == 0);
}
#endif

TEST_CASE("lease status --watch with the store down: says so once on stderr, keeps asking, SIGTERM exits 0") {
  TempDir dir;
  const std::string store = "host=127.0.0.1 port=" + std::to_string(fmtest::free_loopback_port()) +
                            " user=nobody dbname=nothing connect_timeout=1";
  Spawned w =
      spawn_process({forgemeter_bin(), "lease", "status", "--watch", "--timeout", "500ms", "--store", store, "down"},
                    dir.file("out"), dir.file("err"));
  const auto said = [&] { return read_file(dir.file("err")).find("still trying") != std::string::npos; };
  const auto end = steady_clock::now() + 20s;
  while (!said() && steady_clock::now() < end) std::this_thread::sleep_for(10ms);
  REQUIRE(said());
  std::this_thread::sleep_for(1500ms);  // absence over a window (3 more questions): nothing to await
  CHECK(kill(w.pid, 0) == 0);
  kill(w.pid, SIGTERM);
  CHECK(wait_exit(w.pid, seconds(20)) == 0);
  const std::string err = read_file(dir.file("err"));
  CHECK(err.find("still trying") == err.rfind("still trying"));  // once per outage
  CHECK(read_file(dir.file("out")).empty());
}
