// `forgemeter fetch -o` streams the answer: a 200 MiB answer from a loopback
// server (generated as it is sent, never stored) reaches the file byte for
// byte while the process's peak resident memory (getrusage of the child,
// ru_maxrss) stays under 64 MiB; before the streaming it held the answer
// (and a copy) in memory: 538 MB for a 300 MB answer. The summary modes
// keep no body at all.
#include <doctest/doctest.h>
#include <httplib.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "forgemeter_bin.h"

using namespace fmtest;

namespace {

constexpr std::size_t kAnswerBytes = std::size_t{200} << 20;
constexpr std::size_t kBlock = std::size_t{64} << 10;
constexpr long kPeakBoundKiB = 64L << 10;

// The answer's byte at `offset`: cheap, and no block is a shifted copy of another.
char byte_at(std::size_t offset) noexcept { return static_cast<char>((offset * 31) ^ (offset >> 12) ^ (offset >> 20)); }

void fill(std::size_t offset, std::string& block) {
  for (std::size_t i = 0; i < block.size(); ++i) block[i] = byte_at(offset + i);
}

// Serves kAnswerBytes on GET /big, generated block by block as it is sent.
class BigServer {
 public:
  BigServer() {
    server_.Get("/big", [](const httplib::Request&, httplib::Response& a) {
      a.set_content_provider(kAnswerBytes, "application/octet-stream",
                             [](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                               std::string block(std::min(length, kBlock), '\0');
                               fill(offset, block);
                               return sink.write(block.data(), block.size());
                             });
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~BigServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/big"; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

// The first offset where the file differs from the answer, or its size when
// all of it matches (read in blocks).
std::size_t matching_prefix(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return 0;
  std::string got(kBlock, '\0'), want(kBlock, '\0');
  std::size_t offset = 0;
  for (;;) {
    const std::size_t n = std::fread(got.data(), 1, got.size(), f);
    if (n == 0) break;
    want.resize(n);
    fill(offset, want);
    for (std::size_t i = 0; i < n; ++i)
      if (got[i] != want[i]) {
        std::fclose(f);
        return offset + i;
      }
    offset += n;
  }
  std::fclose(f);
  return offset;
}

}  // namespace

TEST_CASE("fetch -o streams a 200 MiB answer: byte-identical, peak RSS under 64 MiB") {
  BigServer server;
  TempDir dir;
  const std::string out = dir.file("big.bin");
  const Spawned child =
      spawn_process({forgemeter_bin(), "fetch", "-s", "-o", out, server.url()}, dir.file("stdout"), dir.file("stderr"));
  int status = 0;
  rusage usage{};
  REQUIRE(::wait4(child.pid, &status, 0, &usage) == child.pid);
  CHECK(exit_code(status) == 0);
  CHECK(usage.ru_maxrss < kPeakBoundKiB);  // KiB
  MESSAGE("peak RSS of fetch -o for 200 MiB: " << usage.ru_maxrss << " KiB");
  CHECK(matching_prefix(out) == kAnswerBytes);
  // The meter counted the one request and its 200.
  CHECK(read_file(dir.file("stderr")).find("forge HTTP") != std::string::npos);
}

// Summary lines show no body: the answers are counted and dropped as they
// come (before, each was kept whole until its line was written: 538 MB for a
// 400 MB answer, and as many at once as --parallel ran).
TEST_CASE("fetch --summary and --parallel keep no answer's body: two 200 MiB answers, peak RSS under 64 MiB") {
  BigServer server;
  TempDir dir;
  for (const char* mode : {"--summary", "--parallel"}) {
    CAPTURE(mode);
    std::vector<std::string> args = {forgemeter_bin(), "fetch", "-s", mode};
    if (std::string(mode) == "--parallel") args.push_back("2");
    args.insert(args.end(), {server.url(), server.url()});
    const Spawned child = spawn_process(args, dir.file("stdout"), dir.file("stderr"));
    int status = 0;
    rusage usage{};
    REQUIRE(::wait4(child.pid, &status, 0, &usage) == child.pid);
    CHECK(exit_code(status) == 0);
    MESSAGE("peak RSS of fetch " << std::string(mode) << " for 2 x 200 MiB: " << usage.ru_maxrss << " KiB");
    CHECK(usage.ru_maxrss < kPeakBoundKiB);  // KiB
    const std::string out = read_file(dir.file("stdout"));
    CHECK(std::count(out.begin(), out.end(), '\n') == 2);
    CHECK(out.rfind("200 GET " + server.url(), 0) == 0);
  }
}
